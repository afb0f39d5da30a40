"""Output is not the job: stdout and stderr that can no longer be written (the reader of a pipe
went away, as in `tracker nightly | head -1`; a full disk or /dev/full) drop what is written to
them, so a command finishes its work and exits with the code of that work.

`keep_writing_when_output_fails()` replaces sys.stdout and sys.stderr, once, by text streams
of the same encoding and buffering over a writer that, on the first such failure, points the
file descriptor at /dev/null and from then on writes nowhere, quietly. Everything that writes
through them (click.echo, print_table, the logging handler, tqdm bars, the interpreter's
flush at exit) and every chart process forked later is covered in this one place."""

from __future__ import annotations

import errno
import io
import os
import sys
from typing import TextIO

# Errors of the output itself, not of the command: a closed pipe or socket, a full or failing
# device (a terminal that hung up gives EIO).
LOST_OUTPUT = frozenset(
    {errno.EPIPE, errno.ECONNRESET, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}
)


class _DroppingWriter(io.RawIOBase):
    """Writes to a file descriptor until the output is lost, then nowhere."""

    def __init__(self, fd: int) -> None:
        super().__init__()
        self._fd = fd
        self.lost: OSError | None = None

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return self.lost is None and os.isatty(self._fd)

    def write(self, data) -> int:
        if self.lost is not None:
            return len(data)
        try:
            return os.write(self._fd, data)
        except OSError as exc:
            if exc.errno not in LOST_OUTPUT:
                raise
            self.lost = exc
            # Other writers of this descriptor (processes forked from now on, C code) write
            # into /dev/null too instead of failing.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._fd)
            os.close(devnull)
            return len(data)


def _dropping(stream: TextIO) -> TextIO:
    """A stream like `stream` over a _DroppingWriter, or `stream` itself when it has no
    descriptor."""
    if not isinstance(stream, io.TextIOWrapper):
        return stream
    try:
        fd = stream.fileno()
    except (OSError, ValueError):
        return stream
    stream.flush()
    raw = _DroppingWriter(fd)
    return io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=stream.write_through,
    )


def keep_writing_when_output_fails() -> None:
    """Make lost stdout and stderr drop output instead of failing the command. Only the
    interpreter's own streams are replaced (not a CliRunner's or pytest's), and only once."""
    # None: the descriptor was closed before start (`>&-`); click then writes nothing.
    if sys.stdout is sys.__stdout__ and sys.stdout is not None:
        sys.stdout = _dropping(sys.stdout)
    if sys.stderr is sys.__stderr__ and sys.stderr is not None:
        sys.stderr = _dropping(sys.stderr)
