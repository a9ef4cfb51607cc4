# Runs `tpcost ARGS_A` and `tpcost ARGS_B` (each '|'-separated) and fails unless both exit 0
# and print the same report once the first line (which names the file) is dropped. With
# -DCONVERT=FILE, first runs `tpcost convert CONVERT_ARGS` into OUT (a round trip).
if(DEFINED CONVERT_ARGS)
  string(REPLACE "|" ";" conv "${CONVERT_ARGS}")
  execute_process(COMMAND "${BIN}" convert ${conv} RESULT_VARIABLE rc OUTPUT_FILE "${OUT}"
                  ERROR_QUIET TIMEOUT 60)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tpcost convert ${CONVERT_ARGS}: exit ${rc}")
  endif()
endif()
foreach(side A B)
  string(REPLACE "|" ";" argv "${ARGS_${side}}")
  execute_process(COMMAND "${BIN}" ${argv} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET
                  TIMEOUT 60)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tpcost ${ARGS_${side}}: exit ${rc}\n${out}")
  endif()
  # Not string(REGEX REPLACE "^[^\n]*\n" ...): CMake re-anchors '^' after each match and would
  # drop every line, leaving two empty reports.
  string(FIND "${out}" "\n" eol)
  math(EXPR body "${eol} + 1")
  string(SUBSTRING "${out}" ${body} -1 report_${side})
  set(full_${side} "${out}")
endforeach()
if(NOT report_A STREQUAL report_B OR report_A STREQUAL "")
  message(FATAL_ERROR "the reports differ:\n--- ${ARGS_A}\n${full_A}--- ${ARGS_B}\n${full_B}")
endif()
