"""Character columns of byte offsets, in bounded time per lookup however long the line.

Parsers report byte offsets; findings need 1-based character columns. Slicing and decoding
the line for every fact is quadratic on a 4 MB single-line file, so a long line gets a table
of character counts every BLOCK bytes (counting the bytes that start a UTF-8 character) and
a lookup decodes at most BLOCK bytes. Within the first BLOCK bytes the count is exact
(`errors="replace"` decoding), as before."""
from __future__ import annotations

BLOCK = 4096
CONTINUATION = bytes(range(0x80, 0xC0))


class Columns:
    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines
        self._blocks: dict[int, list[int]] = {}

    def chars(self, row: int, byte_col: int) -> int:
        """Characters before byte `byte_col` of 0-based line `row`."""
        line = self.lines[row] if 0 <= row < len(self.lines) else b""
        if byte_col <= BLOCK:
            prefix = line[:byte_col]
            return byte_col if prefix.isascii() else len(prefix.decode("utf-8", "replace"))
        blocks = self._blocks.get(row)
        if blocks is None:
            blocks = self._blocks[row] = _block_counts(line)
        index = min(byte_col // BLOCK, len(blocks) - 1)
        return blocks[index] + _starts(line[index * BLOCK:byte_col])


def _block_counts(line: bytes) -> list[int]:
    counts, total = [0], 0
    for start in range(0, len(line), BLOCK):
        total += _starts(line[start:start + BLOCK])
        counts.append(total)
    return counts


def _starts(chunk: bytes) -> int:
    return len(chunk) if chunk.isascii() else len(chunk.translate(None, CONTINUATION))
