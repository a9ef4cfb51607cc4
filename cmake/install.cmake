# Installation: the headers, the tpcost binary with its man page and shell completions, a CMake
# package (find_package(tpcost) -> tpcost::core, and tpcost::io with COMPONENTS io) and
# pkg-config files (tpcost, tpcost-io). CPack builds a .deb from the same rules.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The package files are architecture-independent (the library is header-only): share/.
set(TPCOST_INSTALL_CMAKEDIR "${CMAKE_INSTALL_DATADIR}/cmake/tpcost"
    CACHE STRING "Where tpcostConfig.cmake goes, relative to the prefix")
set(TPCOST_INSTALL_PKGCONFIGDIR "${CMAKE_INSTALL_DATADIR}/pkgconfig"
    CACHE STRING "Where tpcost.pc goes, relative to the prefix")
# Debian's and the shells' own places for packaged completions.
set(TPCOST_INSTALL_BASH_COMPLETIONDIR "${CMAKE_INSTALL_DATADIR}/bash-completion/completions"
    CACHE STRING "Where the bash completion goes")
set(TPCOST_INSTALL_ZSH_COMPLETIONDIR "${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions"
    CACHE STRING "Where the zsh completion goes")
set(TPCOST_INSTALL_FISH_COMPLETIONDIR "${CMAKE_INSTALL_DATADIR}/fish/vendor_completions.d"
    CACHE STRING "Where the fish completion goes")

# Consumers see tpcost::core and tpcost::io, the names used inside the build too. Two export
# sets, so that find_package(tpcost) needs fmt and nlohmann_json only when io is asked for.
set_target_properties(tpcost PROPERTIES EXPORT_NAME core)
set_target_properties(tpcost_io PROPERTIES EXPORT_NAME io)
install(TARGETS tpcost EXPORT tpcost-core-targets FILE_SET HEADERS)
install(TARGETS tpcost_io EXPORT tpcost-io-targets FILE_SET HEADERS)
install(EXPORT tpcost-core-targets NAMESPACE tpcost:: DESTINATION "${TPCOST_INSTALL_CMAKEDIR}")
install(EXPORT tpcost-io-targets NAMESPACE tpcost:: DESTINATION "${TPCOST_INSTALL_CMAKEDIR}")
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/tpcost-config.cmake.in" "${PROJECT_BINARY_DIR}/tpcostConfig.cmake"
  INSTALL_DESTINATION "${TPCOST_INSTALL_CMAKEDIR}")
# 0.x: a minor release may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(
  "${PROJECT_BINARY_DIR}/tpcostConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion ARCH_INDEPENDENT)
install(FILES "${PROJECT_BINARY_DIR}/tpcostConfig.cmake"
              "${PROJECT_BINARY_DIR}/tpcostConfigVersion.cmake"
        DESTINATION "${TPCOST_INSTALL_CMAKEDIR}")

# pkg-config: the prefix is found from the .pc file's own place, so a staged or relocated
# install works as well as /usr.
file(RELATIVE_PATH TPCOST_PC_TO_PREFIX "/prefix/${TPCOST_INSTALL_PKGCONFIGDIR}" "/prefix")
string(REGEX REPLACE "/$" "" TPCOST_PC_TO_PREFIX "${TPCOST_PC_TO_PREFIX}")
if(IS_ABSOLUTE "${CMAKE_INSTALL_INCLUDEDIR}")
  set(TPCOST_PC_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}")
else()
  set(TPCOST_PC_INCLUDEDIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}")
endif()
configure_file("${PROJECT_SOURCE_DIR}/cmake/tpcost.pc.in" "${PROJECT_BINARY_DIR}/tpcost.pc" @ONLY)
configure_file("${PROJECT_SOURCE_DIR}/cmake/tpcost-io.pc.in" "${PROJECT_BINARY_DIR}/tpcost-io.pc"
               @ONLY)
install(FILES "${PROJECT_BINARY_DIR}/tpcost.pc" "${PROJECT_BINARY_DIR}/tpcost-io.pc"
        DESTINATION "${TPCOST_INSTALL_PKGCONFIGDIR}")

if(TARGET tpcost_cli)
  set(_gen "${PROJECT_BINARY_DIR}/src/generated")
  install(TARGETS tpcost_cli RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
  install(FILES "${_gen}/tpcost.1" DESTINATION "${CMAKE_INSTALL_MANDIR}/man1")
  install(FILES "${_gen}/tpcost.bash" DESTINATION "${TPCOST_INSTALL_BASH_COMPLETIONDIR}"
          RENAME tpcost)
  install(FILES "${_gen}/_tpcost" DESTINATION "${TPCOST_INSTALL_ZSH_COMPLETIONDIR}")
  install(FILES "${_gen}/tpcost.fish" DESTINATION "${TPCOST_INSTALL_FISH_COMPLETIONDIR}")
endif()

# A .deb of the same files: cpack --config <build>/CPackConfig.cmake (scripts/check-package.sh).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tpcost)
set(CPACK_PACKAGE_VENDOR "The tpcost authors")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "A command-line calculator of how much of a GPU's time goes to communication when a\n"
  "transformer is split with tensor parallelism, with the header-only C++20 library it is\n"
  "built on (CMake package and pkg-config file), its man page and bash, zsh and fish\n"
  "completions.")
set(CPACK_RESOURCE_FILE_LICENSE "${PROJECT_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/package")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(TPCOST_DEB_MAINTAINER "The tpcost authors <tpcost@users.noreply.example>"
    CACHE STRING "The Maintainer field of the .deb")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${TPCOST_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Depends is computed by dpkg-shlibdeps from what the binary links (libc6 alone: the CLI links
# fmt header-only and libstdc++, yaml-cpp and toml++ statically), so it cannot go stale.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# --plot runs gnuplot; the library's io headers need fmt and nlohmann_json headers.
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "gnuplot-nox, libfmt-dev, nlohmann-json3-dev")
set(CPACK_STRIP_FILES ON)
include(CPack)
