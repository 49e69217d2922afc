// What libloom exports. The library is compiled with hidden visibility (-fvisibility=hidden
// -fvisibility-inlines-hidden): only what the public headers mark can be linked against, so
// internals (detail::, the backend namespaces, src/ headers) stay out of the ABI and the
// dynamic symbol table.
//
// A public header that declares what libloom defines wraps its declarations in
// LOOM_PUBLIC_BEGIN ... LOOM_PUBLIC_END (after its #includes): classes and class templates
// (with their members, vtables and type_info, so exceptions and dynamic_cast work across the
// library's boundary) and plain functions declared in between are exported. GCC does not
// apply that region to function templates, so each function template the library
// instantiates explicitly carries LOOM_EXPORT on its declaration (that mark also reaches the
// explicit instantiations in src/). Header-only headers (the batched routines, the team
// launcher) need neither: users instantiate them themselves; a header-only header that calls
// into the library marks that one declaration with LOOM_EXPORT.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define LOOM_EXPORT __attribute__((visibility("default")))
#define LOOM_PUBLIC_BEGIN _Pragma("GCC visibility push(default)")
#define LOOM_PUBLIC_END _Pragma("GCC visibility pop")
#else
#define LOOM_EXPORT
#define LOOM_PUBLIC_BEGIN
#define LOOM_PUBLIC_END
#endif
