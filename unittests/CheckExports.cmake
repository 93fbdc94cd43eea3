# Checks that a shared library exports only octet_* symbols (plus the ELF
# _init/_fini). Usage: cmake -DNM=<nm> -DLIB=<library> -P CheckExports.cmake
execute_process(
  COMMAND ${NM} -D --defined-only ${LIB}
  OUTPUT_VARIABLE out
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${LIB}")
endif()
string(REPLACE "\n" ";" lines "${out}")
set(count 0)
foreach(line IN LISTS lines)
  if(line STREQUAL "")
    continue()
  endif()
  string(REGEX MATCH "[^ ]+$" sym "${line}")
  if(sym MATCHES "^octet_")
    math(EXPR count "${count} + 1")
  elseif(NOT sym MATCHES "^_(init|fini)$")
    message(FATAL_ERROR "unexpected exported symbol: ${sym}")
  endif()
endforeach()
if(count EQUAL 0)
  message(FATAL_ERROR "no octet_ symbols exported from ${LIB}")
endif()
message(STATUS "${LIB}: ${count} octet_ symbols, nothing else")
