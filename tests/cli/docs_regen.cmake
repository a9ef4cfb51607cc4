# scripts/regen-docs.py on a page with stale blocks: --check names the file, line and command;
# a rewrite makes --check pass; a timing is compared normalised; a second rewrite changes nothing.
#   -DPYTHON=python3 -DSCRIPT=scripts/regen-docs.py -DBIN=tpcost -DSOURCE_DIR=repo
#   -DPAGE=tests/cli/data/docs/stale.md -DWORK=scratch/dir
file(MAKE_DIRECTORY "${WORK}")
set(page "${WORK}/stale.md")
configure_file("${PAGE}" "${page}" COPYONLY)
set(regen "${PYTHON}" "${SCRIPT}" --root "${SOURCE_DIR}" --tpcost "${BIN}")

execute_process(COMMAND ${regen} --check "${page}" RESULT_VARIABLE rc ERROR_VARIABLE err
                OUTPUT_VARIABLE out)
if(NOT rc EQUAL 1 OR NOT err MATCHES "stale\\.md:6: stale output of `tpcost sweep --tp 2 --quiet`"
   OR NOT err MATCHES "stale\\.md:13: stale output of `tpcost plan ")
  message(FATAL_ERROR "--check did not name both stale blocks (rc ${rc}):\n${err}")
endif()
if(err MATCHES "this-is-not-a-command")
  message(FATAL_ERROR "--check ran the ```sh block:\n${err}")
endif()

execute_process(COMMAND ${regen} "${page}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the rewrite failed (rc ${rc}):\n${err}")
endif()
file(READ "${page}" first)
if(first MATCHES "this is not what tpcost prints" OR NOT first MATCHES "\nTP +compute ms"
   OR NOT first MATCHES "\\$ tpcost this-is-not-a-command")
  message(FATAL_ERROR "the rewrite did not replace the stale blocks only:\n${first}")
endif()

# Another machine's timing: still current, and a rewrite keeps the page byte for byte.
string(REGEX REPLACE "[0-9.]+ ms on [0-9]+ threads?" "123.4 ms on 7 threads" timed "${first}")
if(timed STREQUAL first)
  message(FATAL_ERROR "the plan block has no timing to change:\n${first}")
endif()
file(WRITE "${page}" "${timed}")
execute_process(COMMAND ${regen} --check "${page}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "a different timing made the block stale (rc ${rc}):\n${err}")
endif()
execute_process(COMMAND ${regen} "${page}" RESULT_VARIABLE rc OUTPUT_VARIABLE out)
file(READ "${page}" second)
if(NOT rc EQUAL 0 OR NOT second STREQUAL timed OR out MATCHES "updated")
  message(FATAL_ERROR "a second rewrite changed the page (rc ${rc}):\n${second}")
endif()
