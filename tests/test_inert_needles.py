"""inert.py leaves a macro body unparsed when its lower-cased text holds none of inert.NEEDLES, which each
consumer module keeps by hand. A consumer that starts keying on a word with no needle in it would lose its
facts in macro bodies, silently (every fixture would still pass if none has such a body). So the words
each consumer keys on are read from its own source: the identifier-like strings of its module-level word
lists (written in the module, or read from rules/names/ by `name_list`) and of its comparisons
(`name in (...)`, `== "..."`, startswith/endswith), and its compiled patterns (a pattern is needled
when every match holds a literal run containing a needle). Each must hold a needle, or be listed in
EXEMPT with why a body without a needle still yields no fact from it."""
from __future__ import annotations

import ast
import inspect
import re
import warnings
from collections.abc import Callable, Iterable
from types import ModuleType
from typing import Any, TypeGuard

import pytest
from migrate.extract import names as name_lists
from migrate.extract.c import cuda_cpp, inert, ts

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants
    import sre_parse

IDENTIFIER = re.compile(r"^[A-Za-z_]\w*$")

# (module, word-list or pattern constant, or the word of a comparison) -> why no needle is needed
EXEMPT: dict[tuple[str, str], str] = {
    ("cuda_cpp", "INCLUDE_GUARD"): "read on #ifndef names: a directive, inert.STRUCTURE's",
    ("cuda_cpp", "LONE_IDENTIFIER"): "shape of a name already captured",
    ("cuda_cpp", "HASH_ERROR"): "#error: a directive, inert.STRUCTURE's",
    ("cuda_cpp", "VISA"): "searched in the text of an asm statement, which the `asm` needle finds",
    ("cuda_cpp", "LANGUAGE_GUARD"): "an #if __cplusplus condition: a directive, inert.STRUCTURE's",
    ("cuda_cpp", "SHADING_DIRECTIVE"): "a GLSL #extension line searched over the whole file, not a body",
    ("cuda_cpp", "hip"): "a guard label: guards come from directives, inert.STRUCTURE's",
    ("cuda_cpp", "construct"): "a fact kind, not source text",
    ("cuda_cpp", "switch_branch"): "a fact kind, not source text (switch branches come from directives, inert.STRUCTURE's)",
    ("cuda_cpp", "unless_branch"): "a fact kind, not source text (branches taken while a macro is undefined: directives)",
    ("cuda_cpp", "ERROR"): "a tree-sitter node type",
    ("device", "QUALIFIERS"): "stripped from the type of a declaration keyed by its name or value",
    ("device", "COMMENT"): "stripped from text already keyed",
    ("device", "INTEGER"): "reads a value of a declaration keyed by its name",
    ("device", "DEVICE_WORDS"): "tells device code from host code: the construct it feeds has its own needle",
    ("device", "ll"): "suffix test of a mask value keyed by its name",
    ("device", "THIRTY_TWO_BIT_TYPES"): "types of a declaration keyed by its name (mask, lane, warp)",
    ("device", "SIZES"): "element sizes of a __shared__ or launch declaration (needles shared, launch)",
    ("device", "CROSS_LANE"): "read in the body of an `if (tid < 32)` the lane-arith-32 construct keyed (needle tid, thread)",
    ("device", "CROSS_LANE_WORDS"): "words of a function called in such a body: a lane-arith-32 construct already keyed",
    ("hazards", "UNSIGNED_32"): "the aliased type of a declaration named for a mask (needle mask)",
    ("hazards", "FLOATING"): "argument type of an atomic (needle atomic)",
    ("hazards", "COMMENT"): "stripped from text already keyed",
    ("hazards", "WIDE_CAST"): "widening of a flat index (needles blockidx, threadidx)",
    ("hazards", "SCALED_ID"): "scaling of a flat index (needles blockidx, threadidx)",
    ("hazards", "WIDE_INDEX"): "type of a flat index (needles blockidx, threadidx)",
    ("hazards", "CEIL_DIV"): "a grid size computed (needle grid)",
    ("hazards", "LAUNCHED"): "launches of a kernel the flat-index needles found (blockidx, threadidx)",
    ("hazards", "OPENED"): "names initialising such a launch's grid (needles blockidx, threadidx)",
    ("hazards", "INITIAL"): "the value of such a name (needles blockidx, threadidx)",
    ("hazards", "VERSION_SOURCE"): "context of a `/ 1000` (needle 1000)",
    ("hazards", "MINOR"): "the minor version beside a `/ 1000` (needle 1000)",
    ("hazards", "BALLOT_NAME"): "shape of a name in a mask bit operation's argument (needles popc, ffs, clz, brev)",
    ("hazards", "Experimental"): "a name under Kokkos:: (needle kokkos)",
    ("hazards", "resources"): "a name under RAJA:: (needle raja)",
    ("hazards", "expt"): "a name under RAJA:: (needle raja)",
    ("hazards", "policy"): "a name under RAJA:: (needle raja)",
    ("hazards", "LIBCUDACXX"): "names under cuda:: (needle cuda)",
    ("lanemasks", "FULL_MASK_32"): "value of a declaration named for a mask (needle mask)",
    ("lanemasks", "FULL_MASK_HEX_32"): "written 0xffffffff (needle ffffffff)",
    ("lanemasks", "HEX_F"): "a gate over the whole file, not a body",
    ("lanemasks", "static_cast"): "a cast around a returned ballot (needle ballot)",
    ("lanemasks", "reinterpret_cast"): "a cast around a returned ballot (needle ballot)",
    ("runtime", "DECLINE_OUTPUT"): "what a declining branch of a capability check prints (needle cuda)",
    ("runtime", "UNREGISTERED"): "members of a cudaPointerAttributes (needle cuda)",
    ("wavefront", "WIDE"): "type of an index keyed by blockIdx / warp (needles blockidx, warp)",
    ("wavefront", "WORD"): "words of a kernel whose row id the blockidx needle found",
    ("wavefront", "COMPARED_LEFT"): "a comparison in such a kernel's `if` (needle blockidx)",
    ("wavefront", "COMPARED_RIGHT"): "a comparison in such a kernel's `if` (needle blockidx)",
    ("wavefront", "int"): "type of a declaration keyed by its name (needle warp)",
    ("wavefront", "int32_t"): "type of a declaration keyed by its name (needle warp)",
    ("wavefront", "SIGNED_32"): "types of a declaration keyed by its name (needle warp)",
    ("xref", "MACRO_NAME"): "shape of a name already captured",
    ("xref", "CUTLASS_USE"): "a gate over the whole file, not a body",
    ("xref", "CUTLASS_NAMESPACES"): "uses inside a definition: `{`, inert.STRUCTURE's",
    ("xref", "FOREIGN"): "leaves references out (fewer facts)",
    ("xref", "FAILING_CALLS"): "a body of a definition: `{`, inert.STRUCTURE's",
    ("xref", "abort"): "a body of a definition: `{`, inert.STRUCTURE's",
    ("xref", "AT_ERROR"): "a body of a definition: `{`, inert.STRUCTURE's",
    ("xref", "dispatch"): "an argument of a registration (needles impl, def)",
    ("xref", "MACRO"): "a fact's text, not source text",
}


def _holds(text: str, needles: tuple[str, ...]) -> bool:
    return any(needle in text.lower() for needle in needles)


def _needled(items: Any, needles: tuple[str, ...]) -> bool:
    """Whether every match of a parsed pattern holds a literal run (case folded) containing a needle."""
    run = ""
    for op, av in items:
        if op is sre_constants.LITERAL:
            run += chr(av)
            if _holds(run, needles):
                return True
            continue
        if op is sre_constants.AT:  # \b, ^, $: zero width, the run goes on
            continue
        run = ""
        if op is sre_constants.SUBPATTERN and _needled(av[3], needles):
            return True
        if op is sre_constants.BRANCH and all(_needled(branch, needles) for branch in av[1]):
            return True
        if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT) and av[0] >= 1 \
                and _needled(av[2], needles):
            return True
    return False


def _pattern(call: ast.AST) -> str | None:
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "compile" \
            and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, (str, bytes)):
        value = call.args[0].value
        return value.decode() if isinstance(value, bytes) else value
    return None


Lists = Callable[[str, str], Iterable[str]]


def _list_read(call: ast.AST, lists: Lists) -> list[str] | None:
    """The words of a `name_list("area", "key")` (or an `alternatives("area", "key")` a pattern is built
    from) the module reads from rules/names/, else None."""
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("name_list", "alternatives") \
            and len(call.args) == 2 and all(isinstance(a, ast.Constant) for a in call.args):
        area, key = (a.value for a in call.args if isinstance(a, ast.Constant))
        return sorted(lists(str(area), str(key)))
    return None


def unneedled(source: str, needles: tuple[str, ...], lists: Lists = name_lists.name_list) -> list[str]:
    """The word lists, patterns and compared words of a module's source with no needle: the constant's
    name for a word list (written there or read by name_list) or pattern, the word itself for a
    comparison. Words that are tree-sitter node types, field names or capture names are the tree's,
    not the source's."""
    language = ts._language()
    tree_words = {language.node_kind_for_id(i) for i in range(language.node_kind_count)}
    tree_words |= {language.field_name_for_id(i) for i in range(1, language.field_count + 1)}
    tree_words |= {name for names in ts._types("cuda").values() for name in names}

    def loose(word: object) -> TypeGuard[str]:
        return isinstance(word, str) and bool(IDENTIFIER.match(word)) and word not in tree_words \
            and not _holds(word, needles)

    found: list[str] = []
    module = ast.parse(source)
    for node in module.body:  # module-level word lists and patterns
        if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
            continue
        name = node.targets[0].id
        listed = _list_read(node.value, lists)
        if listed is not None:
            found += [name] if any(loose(word) for word in listed) else []
            continue
        arguments: set[int] = set()  # the area and key of a list read are no source text
        for part in ast.walk(node.value):
            built = _list_read(part, lists)  # a pattern built from a list: each of its names is keyed on
            if built is not None:
                found += [name] if any(loose(word) for word in built) else []
                arguments |= {id(a) for a in getattr(part, "args", [])}
            pattern = _pattern(part)
            if pattern is not None and not _needled(sre_parse.parse(pattern), needles):
                found.append(name)
            if isinstance(part, ast.Constant) and loose(part.value) and pattern is None and id(part) not in arguments:
                found.append(name)
    for part in ast.walk(module):  # words compared inside functions
        if isinstance(part, ast.Compare):
            for side in (part.left, *part.comparators):
                for item in ([side] if isinstance(side, ast.Constant) else getattr(side, "elts", [])):
                    if isinstance(item, ast.Constant) and loose(item.value):
                        found.append(item.value)
        if isinstance(part, ast.Call) and isinstance(part.func, ast.Attribute) \
                and part.func.attr in ("startswith", "endswith", "search", "match", "fullmatch"):
            for arg in part.args:
                if isinstance(arg, ast.Constant) and loose(arg.value):
                    found.append(arg.value)
    return list(dict.fromkeys(found))


NEEDLES = tuple(needle.decode() for needle in inert.NEEDLES)
MODULES = {module.__name__.rsplit(".", 1)[1]: module for module in (cuda_cpp, *inert.CONSUMERS)}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_word_a_consumer_keys_on_holds_a_needle(name: str) -> None:
    module: ModuleType = MODULES[name]
    missing = [word for word in unneedled(inspect.getsource(module), NEEDLES) if (name, word) not in EXEMPT]
    assert not missing, f"{name} keys on {missing} with no needle of inert.NEEDLES: add one to {name}.NEEDLES " \
                        f"(or say in EXEMPT why a macro body without one yields no fact from it)"


def test_every_exemption_is_still_needed() -> None:
    found = {(name, word) for name, module in MODULES.items()
             for word in unneedled(inspect.getsource(module), NEEDLES)}
    assert not set(EXEMPT) - found


def test_consumers_are_every_module_that_reads_a_reparsed_body() -> None:
    reparsed = {module for module in MODULES.values() if hasattr(module, "NEEDLES")}
    assert reparsed == set(inert.CONSUMERS)
    assert set(NEEDLES) >= {needle.decode() for module in inert.CONSUMERS for needle in module.NEEDLES}


def test_a_planted_omission_fails() -> None:
    """A word added to a word list, a pattern, a comparison, or a needle taken away: each is found."""
    from migrate.extract.c import device
    source = inspect.getsource(device)
    assert "BALLOTS" not in unneedled(source, NEEDLES)

    def planted_list(area: str, key: str) -> Iterable[str]:
        listed = name_lists.name_list(area, key)
        return listed | {"__nanosleep"} if key == "warp_votes" else listed

    assert "BALLOTS" in unneedled(source, NEEDLES, planted_list)
    assert "LISTED" in unneedled('import re\nLISTED = frozenset({"__ballot_sync", "__nanosleep"})\n', NEEDLES)
    assert "SLEEP" in unneedled(source + '\nSLEEP = re.compile(r"\\b__nanosleep\\s*\\(")\n', NEEDLES)
    assert "__nanosleep" in unneedled(source + '\ndef f(name):\n    return name == "__nanosleep"\n', NEEDLES)
    assert "__nanosleep" in unneedled(source + '\ndef f(name):\n    return name.startswith("__nanosleep")\n', NEEDLES)
    from migrate.extract.c import hazards  # a pattern built from a list (alternatives) is read through the list
    assert "LAYER_CUDA_MACRO" not in unneedled(inspect.getsource(hazards), NEEDLES)

    def planted_macro(area: str, key: str) -> Iterable[str]:
        listed = name_lists.name_list(area, key)
        return listed | {"SYCL_ENABLED"} if key == "layer_cuda_macros" else listed

    assert "LAYER_CUDA_MACRO" in unneedled(inspect.getsource(hazards), NEEDLES, planted_macro)
    without_shfl = tuple(needle for needle in NEEDLES if needle != "shfl")
    assert "SHUFFLES" in unneedled(source, without_shfl)
    # a pattern is needled only when every alternative is
    assert "P" in unneedled('import re\nP = re.compile(r"__shfl_sync|__nanosleep")\n', NEEDLES)
    assert "P" not in unneedled('import re\nP = re.compile(r"(?i)__(shfl|ballot)_\\w+")\n', NEEDLES)


def test_every_c_loader_holds_an_inert_needle() -> None:
    """cuda_cpp reads its library loaders from rules/names/libraries.yaml `c_loaders` inside a function, which the
    module-level reading above does not see; a loader added there without a needle would lose its loads in macro
    bodies (inert.OWN_NEEDLES keeps dlopen and loadlibrary by hand)."""
    loaders, _ = cuda_cpp.library_loaders()
    assert loaders
    for loader in sorted(loaders):
        assert any(needle in loader.lower().encode() for needle in inert.NEEDLES), loader
