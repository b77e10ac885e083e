# Sanitizer and fuzzing builds, shared by the top-level project and a
# standalone runtime build (cmake -S runtime).
#
#   -DTPC_SANITIZE=ON  AddressSanitizer + UndefinedBehaviorSanitizer on every
#                      file we compile (any undefined behaviour is fatal).
#   -DTPC_FUZZ=ON      libFuzzer targets (test/fuzz); needs clang. Our code is
#                      instrumented for coverage (and ASan); LLVM/MLIR come
#                      from the distribution's libraries, uninstrumented.
#
# scripts/sanitize.sh configures such a build with Debian's clang-14.
include_guard(GLOBAL)

option(TPC_SANITIZE "Build with AddressSanitizer and UBSan" OFF)
option(TPC_FUZZ "Build the libFuzzer targets under test/fuzz (needs clang)" OFF)

if(TPC_FUZZ AND NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "TPC_FUZZ needs clang (libFuzzer); configure with "
                      "-DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14")
endif()

if(TPC_SANITIZE OR TPC_FUZZ)
  add_compile_options(-fsanitize=address,undefined
                      -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
  # The sanitizers keep clang from vectorizing the `omp simd` loops, and it
  # says so for every one of them.
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    add_compile_options(-Wno-pass-failed)
  endif()
endif()
if(TPC_FUZZ)
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# A libFuzzer executable: the harness and the libraries it links.
function(tpc_add_fuzzer name source)
  add_executable(${name} ${source})
  target_link_options(${name} PRIVATE -fsanitize=fuzzer)
  target_link_libraries(${name} PRIVATE ${ARGN})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz)
  set_property(GLOBAL APPEND PROPERTY TPC_FUZZERS ${name})
endfunction()
