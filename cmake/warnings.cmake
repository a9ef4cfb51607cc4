# tpcost_warnings: the project's own warning flags, linked PRIVATE and never exported.
add_library(tpcost_warnings INTERFACE)
target_compile_options(tpcost_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
  -Wdouble-promotion -Wnon-virtual-dtor)
if(TPCOST_WERROR)
  target_compile_options(tpcost_warnings INTERFACE -Werror)
endif()
