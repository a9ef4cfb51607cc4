# Hostile input and hostile conditions (issue 17): output files, numbers, bounded and escaped
# messages. Included from tests/cli/CMakeLists.txt, so that tpcost_cli_case is defined.

add_executable(tpcost_output_tests output_file_test.cpp)
target_link_libraries(tpcost_output_tests PRIVATE tpcost::io Catch2::Catch2WithMain tpcost_warnings)
target_compile_definitions(tpcost_output_tests PRIVATE
  TPCOST_BINARY="$<TARGET_FILE:tpcost_cli>"
  TPCOST_CONFIGS_DIR="${PROJECT_SOURCE_DIR}/examples/configs"
  TPCOST_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/../data")
add_dependencies(tpcost_output_tests tpcost_cli)
catch_discover_tests(tpcost_output_tests TEST_PREFIX "output: " EXTRA_ARGS --warn NoTests)
