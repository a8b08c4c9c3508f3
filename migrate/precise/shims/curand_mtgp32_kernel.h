/* rocm-migrate shim: clang's __clang_cuda_runtime_wrapper.h force-includes this cuRAND header,
 * which a CUDA installation without cuRAND (a minimal toolkit, a container with cudart only)
 * does not have. It is searched last (-idirafter), so a real cuRAND header always wins. */
#pragma once
