"""extract, Java sources that load a native library: the NVIDIA libraries they load by name.

A Java binding reaches native code through JNA (`Native.load("NvLowLatencyVk", NvLowLatencyVk.class)`,
`Native.loadLibrary`, `NativeLibrary.getInstance`: https://java-native-access.github.io/jna/5.13.0/javadoc/com/sun/jna/
Native.html#load(java.lang.String,java.lang.Class)) or JNI (`System.loadLibrary("name")`, `System.load(path)`:
https://docs.oracle.com/en/java/javase/21/docs/api/java.base/java/lang/System.html#loadLibrary(java.lang.String)). A
literal library name is read as Python's ctypes loads are (extract/libraries.py, rules/names/libraries.yaml): a CUDA
library is a `cuda-library-load` construct, a closed NVIDIA SDK's binary (NVAPI, Reflex, TensorRT, OptiX) a
`nvidia-sdk-library-load` one. A name built at run time or held in a constant is not read. Discovery reads only the
`.java` files that make such a call (scan/discover.py), and comments are skipped: a load in a comment is none."""
from __future__ import annotations

import bisect
import re

from migrate.extract import libraries
from migrate.extract.names import alternatives
from migrate.extract.text.lines import fact, finish
from migrate.model import Extraction

# the loading calls (rules/names/libraries.yaml `java_loaders`, their class perhaps qualified by a package of
# `java_loader_packages`), each followed by its first argument when that is a plain string literal
LOAD = re.compile(r'(?<![\w.])(?:(?:' + alternatives("libraries", "java_loader_packages") + r')\.)?'
                  r'(?:' + alternatives("libraries", "java_loaders") + r')\s*\(\s*'
                  r'"((?:[^"\\\n]|\\.)*)"')
COMMENT = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', re.DOTALL)
NEWLINE = re.compile(r"\n")


def extract(source: bytes) -> Extraction:
    text = source.decode("utf-8", errors="replace")
    code = COMMENT.sub(_blank_comment, text)
    starts = [0, *(m.end() for m in NEWLINE.finditer(code))]
    facts = []
    for m in LOAD.finditer(code):
        name = m.group(1)
        construct = libraries.load_construct(name)
        if construct is None:
            continue
        line = bisect.bisect_right(starts, m.start(1))
        column = m.start(1) - starts[line - 1]
        facts.append(fact("construct", construct, line, column, column + len(name), text=name))
    return finish(text, facts)


def _blank_comment(m: re.Match[str]) -> str:
    """A comment as spaces (newlines kept); a string or character literal as it is (the loads' arguments are read
    from strings; a `'"'` is a literal, not a string's start)."""
    found = m.group(0)
    return found if found.startswith(('"', "'")) else re.sub(r"[^\n]", " ", found)
