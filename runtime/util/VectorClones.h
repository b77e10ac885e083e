//===- VectorClones.h - Loops compiled for each vector width ----*- C++ -*-===//
//
// TPC_VECTOR_CLONES on a loop's function compiles it for AVX-512, for AVX2
// with FMA and for the baseline x86-64, and the loader picks the best the
// CPU has (GCC's and clang's target_clones), so one binary runs everywhere
// and uses the wide vectors where they exist. OpenMP's parallel regions are
// outlined before cloning, so the attribute goes on functions called inside
// a region, not on the ones that open it.
// TPC_VECTOR_CLONES_OUT_OF_LINE also keeps a function from being inlined
// in every build: two callers that must agree bit for bit then run the
// same instructions.
//
//===----------------------------------------------------------------------===//

#ifndef TPC_RUNTIME_UTIL_VECTORCLONES_H
#define TPC_RUNTIME_UTIL_VECTORCLONES_H

// Sanitized builds keep one version: the clones' resolvers run before the
// sanitizer runtime is set up.
#if defined(__SANITIZE_ADDRESS__)
#define TPC_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPC_SANITIZED 1
#endif
#endif
#if defined(__x86_64__) && !defined(TPC_SANITIZED)
#define TPC_VECTOR_CLONES                                                      \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
// Clones are called through the resolver, never inlined (and clang refuses
// noinline beside target_clones).
#define TPC_VECTOR_CLONES_OUT_OF_LINE TPC_VECTOR_CLONES
#else
#define TPC_VECTOR_CLONES
#define TPC_VECTOR_CLONES_OUT_OF_LINE __attribute__((noinline))
#endif
// The same for function templates (kernels templated on a storage type).
// clang (14) does not multiversion templates: there they get the baseline
// build's code.
#if defined(__clang__)
#define TPC_VECTOR_CLONES_TEMPLATE
#else
#define TPC_VECTOR_CLONES_TEMPLATE TPC_VECTOR_CLONES
#endif

#endif // TPC_RUNTIME_UTIL_VECTORCLONES_H
