"""The declarations of libgostx's public functions, read from its headers for
_build.py's cdef: the package names the functions it calls, and their
prototypes come from the one place they are written (include/gostx/*.h,
which an sdist carries in _csrc). Every exported function is declared there
as ``GOSTX_API <declaration>;`` (test_symbols checks the exports against
them). An array parameter (``const uint8_t key[GOSTX_KEY_LEN]``) is written
as the pointer C passes, since cffi's parser takes no macro as a size."""
import pathlib
import re


def _declarations(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*|^[ \t]*#[^\n]*", " ", text, flags=re.M)
    for m in re.finditer(r"\bGOSTX_API\b([^;{}]*);", text):
        decl = " ".join(re.sub(r"\bGOSTX_MUST_CHECK\b", " ", m.group(1)).split())
        decl = re.sub(r"(\w+)\s*\[[^\]]*\]", r"*\1", decl)  # T name[N] -> T *name
        yield re.search(r"(\w+)\s*\(", decl).group(1), decl + ";"


def prototypes(source_dir, names):
    """The declarations of names (whitespace-separated; "#" starts a comment),
    in their order; a name the headers do not export stops the build, naming it."""
    found = {}
    for header in sorted(pathlib.Path(source_dir, "include", "gostx").glob("*.h")):
        found.update(_declarations(header.read_text()))
    names = re.sub(r"#[^\n]*", " ", names).split()  # a "# ..." line is a heading
    missing = [n for n in names if n not in found]
    if missing:
        raise SystemExit("_build.py: not declared GOSTX_API in include/gostx/*.h: " + " ".join(missing))
    return "\n".join(found[n] for n in names) + "\n"
