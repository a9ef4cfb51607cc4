# `tpcost sweep --plot` end to end: the SVG and PNG exist, the SVG is well-formed XML with the
# chart's labels, and the script written by --plot-script renders on its own with gnuplot.
#   -DBIN=path/to/tpcost -DWORK=scratch/dir -DXMLLINT=path -DGNUPLOT=path
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(failures "")

execute_process(COMMAND "${BIN}" sweep --tp 1..64 --plot "${WORK}/sweep.svg"
                        --plot-script "${WORK}/sweep.gp"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tpcost sweep --plot: exit ${rc}\n${err}")
endif()
if(NOT out MATCHES "TP  compute ms")
  string(APPEND failures "the table is not on stdout\n")
endif()
if(NOT EXISTS "${WORK}/sweep.svg")
  message(FATAL_ERROR "no SVG written")
endif()
execute_process(COMMAND "${XMLLINT}" --noout "${WORK}/sweep.svg" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND failures "the SVG is not well-formed XML: ${err}\n")
endif()
file(READ "${WORK}/sweep.svg" svg)
foreach(expected "<svg" "t\\*=22\\.1" "8 GPUs/node" "95\\.7%" "25\\.7%" "time per layer \\(ms\\)")
  if(NOT svg MATCHES "${expected}")
    string(APPEND failures "the SVG lacks '${expected}'\n")
  endif()
endforeach()

# The script alone, as a user would restyle and run it: it writes the --plot file's name.
file(REMOVE "${WORK}/sweep.svg")
execute_process(COMMAND "${GNUPLOT}" sweep.gp WORKING_DIRECTORY "${WORK}"
                RESULT_VARIABLE rc ERROR_VARIABLE err)
execute_process(COMMAND "${XMLLINT}" --noout "${WORK}/sweep.svg" RESULT_VARIABLE xml_rc)
if(NOT rc EQUAL 0 OR NOT xml_rc EQUAL 0)
  string(APPEND failures "gnuplot sweep.gp did not write a well-formed sweep.svg: ${err}\n")
endif()

# PNG: the file starts with the PNG signature.
execute_process(COMMAND "${BIN}" sweep --plot "${WORK}/sweep.png" --format csv
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err TIMEOUT 120)
if(NOT rc EQUAL 0)
  string(APPEND failures "--plot sweep.png: exit ${rc} ${err}\n")
else()
  file(READ "${WORK}/sweep.png" head LIMIT 8 HEX)
  if(NOT head STREQUAL "89504e470d0a1a0a")
    string(APPEND failures "sweep.png does not start with the PNG signature (${head})\n")
  endif()
endif()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
