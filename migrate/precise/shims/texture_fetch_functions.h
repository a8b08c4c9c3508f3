/* rocm-migrate shim: clang's __clang_cuda_runtime_wrapper.h (clang <= 18) includes this header,
 * which CUDA 13 no longer ships (texture references were removed). It is searched last
 * (-idirafter), so the CUDA installation's own copy wins wherever it exists. Empty on purpose:
 * rocm-migrate only parses code, it never compiles it. */
#pragma once
