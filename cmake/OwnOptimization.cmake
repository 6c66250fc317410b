# placer_own_optimization(FLAG TARGET...): compiles the targets' own sources at FLAG (-O0, -O1, ...),
# placed after the build type's flags so that it takes effect; the libraries they link keep the
# build type's optimisation. An empty FLAG leaves the targets at the build type's.
#
# For code that runs little and compiles long, where build time matters more than its speed: the
# test programs (PLACER_TEST_OPTIMIZATION, PLACER_SOLVER_TEST_OPTIMIZATION, tests/CMakeLists.txt) and
# the benchmarks CI only builds (PLACER_BENCH_OPTIMIZATION, bench/CMakeLists.txt). Mind that a
# program's copies of the libraries' inline functions and templates replace the libraries' own at
# link time (the linker keeps the first copy it sees, the program's): unoptimised, they slow the
# library code the program calls.
function(placer_own_optimization flag)
  if(NOT flag)
    return()
  endif()
  foreach(target ${ARGN})
    target_compile_options(${target} PRIVATE ${flag})
  endforeach()
endfunction()
