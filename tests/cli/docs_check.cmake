# docs/sweep.svg, shown in the README, must be what tpcost draws today: regenerate and compare.
#   -DBIN=path/to/tpcost -DSOURCE_DIR=repo -DWORK=scratch/dir
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${BIN}" sweep --tp 1..64 --plot "${WORK}/sweep.svg"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tpcost sweep --plot failed: ${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${WORK}/sweep.svg"
                        "${SOURCE_DIR}/docs/sweep.svg" RESULT_VARIABLE different)
if(different)
  message(FATAL_ERROR "docs/sweep.svg is not what tpcost draws now; run 'make docs' and commit it")
endif()
