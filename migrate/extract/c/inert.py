"""Macro bodies that can yield no fact, told from their text without parsing them.

A scan re-parses every macro body as code (cuda_cpp._reparse) and runs every consumer over it: ~0.3 ms
a body, and cuda-samples holds 6,229 distinct ones, 6,164 of which yield no fact with the scan's
identifier names. A body is inert, and is not parsed, when its text holds no needle:

- no word the scan's identifier names accept (`names`: match.IdentifierNames, from the rule base),
  since an identifier fact is built only for those;
- none of the consumers' words (each consumer module's NEEDLES: lower-case pieces of the names, values
  and keywords its constructs key on), looked for in the lower-cased text, so inside longer words too;
- nothing of a structure a fact needs whatever its names (STRUCTURE): a function body or any block `{`
  (definitions, uses inside them, device code), a launch `<<<`, a preprocessor directive (guards,
  switches, `#error`), a declaration of a function (a type, a name, `(`: xref's declarations) or a
  function pointer, a namespace, typedef, asm or __global__.

Non-ASCII text and `$` (both can be part of an identifier) are never inert. An inert body's identifier
words are counted (`words`): each identifier node is one of them, so the count bounds the identifier
facts `names` would have dropped, which cuda_cpp.extract compares with the fact cap."""
from __future__ import annotations

import re
from collections.abc import Callable

from migrate.extract.c import device, hazards, lanemasks, runtime, wavefront, xref

# cuda_cpp's own facts: namespaces it opens or aliases, typedefs, inline assembly, kernels, run-time library loads
OWN_NEEDLES = (b"namespace", b"typedef", b"asm", b"global", b"dlopen", b"loadlibrary")
# the modules whose constructs run over a reparsed body; tests/test_inert_needles.py checks that every word,
# word list and pattern each of them (and cuda_cpp) keys on holds one of NEEDLES, or says why not
CONSUMERS = (device, hazards, lanemasks, runtime, wavefront, xref)
NEEDLES = tuple(dict.fromkeys((*OWN_NEEDLES, *(needle for module in CONSUMERS for needle in module.NEEDLES))))
NEEDLE = re.compile(b"|".join(re.escape(needle) for needle in NEEDLES))  # one search: 10x the `in` of each
STRUCTURE = re.compile(
    rb"[{$]|<<<|#\s*(?:if|el|endif|include|define|undef|error|pragma|line|warning)"  # a block, a launch, a directive
    rb"|[A-Za-z_0-9>][\s*&]+[A-Za-z_]\w*\s*\("  # `T f(`, `T *f(`, `vector<T> f(`: a function declared
    rb"|\(\s*[*&]")  # `T (*f)(...)`: a function pointer declared
WORD = re.compile(rb"[A-Za-z_]\w*")


def words(body: bytes, names: Callable[[str], bool]) -> int | None:
    """The count of identifier words of an inert body; None when the body may yield a fact."""
    if not body.isascii() or STRUCTURE.search(body):
        return None
    if NEEDLE.search(body.lower()):
        return None
    found = WORD.findall(body)
    if any(names(word.decode()) for word in set(found)):
        return None
    return len(found)
