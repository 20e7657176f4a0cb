// gyre/base/export.hpp — GYRE_API: what libgyre.so exports (the embedding API); everything else is hidden.
#pragma once

#if __cplusplus < 202002L
#error "gyre's headers need C++20 (-std=c++20 or later)"
#endif

// libgyre is compiled with -fvisibility=hidden -fvisibility-inlines-hidden, so a class or
// function is visible to an embedder only if its declaration carries GYRE_API. The public
// headers (those <gyre/gyre.hpp> includes) mark every class with out-of-line members, virtual
// functions or exception types, and every function defined in the library; tests/embed/run.sh
// checks that each of those is in the shared library's dynamic symbol table. The apps, tools and
// tests link the same objects as a static library, so they see every symbol.
#if defined(__GNUC__) || defined(__clang__)
#define GYRE_API __attribute__((visibility("default")))
#else
#define GYRE_API
#endif
