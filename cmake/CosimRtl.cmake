# Helpers to verilate RTL blocks and to lint them.
#
# cosim_verilate(TARGET lib TOP module PREFIX Vname SOURCES f.sv... [ARGS verilator-args...])
#   Verilates one parameterization of one module into the static library `lib`
#   (C++ model + FST tracing + assertions compiled in; they can be switched off
#   at run time through VerilatedContext::assertOn). With COSIM_COVERAGE=ON also
#   Verilator coverage (--coverage: line + toggle + user), see tb/common/vcontext.cpp.
function(cosim_verilate)
  cmake_parse_arguments(A "" "TARGET;TOP;PREFIX" "SOURCES;ARGS" ${ARGN})
  set(_cov)
  if(COSIM_COVERAGE)
    set(_cov COVERAGE)
  endif()
  verilate(${A_TARGET} TRACE_FST ${_cov}
    PREFIX ${A_PREFIX}
    TOP_MODULE ${A_TOP}
    SOURCES ${A_SOURCES}
    VERILATOR_ARGS --no-timing -Wall --assert -O3 --x-assign fast --x-initial fast
                   --trace-depth 3 ${A_ARGS})
endfunction()

# cosim_lint(NAME name SOURCES f.sv... [ARGS verilator-args...])
#   Registers a CTest test (label `lint`) running `verilator --lint-only -Wall`.
function(cosim_lint)
  cmake_parse_arguments(A "" "NAME" "SOURCES;ARGS" ${ARGN})
  add_test(NAME lint.${A_NAME}
           COMMAND ${VERILATOR_BIN} --lint-only -Wall --no-timing ${A_ARGS} ${A_SOURCES}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
  set_tests_properties(lint.${A_NAME} PROPERTIES LABELS lint
                       FAIL_REGULAR_EXPRESSION "%Warning|%Error")
endfunction()
