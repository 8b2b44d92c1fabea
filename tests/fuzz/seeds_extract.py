#!/usr/bin/env python3
"""seeds_extract.py: writes the seeds of fuzz_extract.c into
tests/fuzz/corpus_extract (or the directory given): small tar streams for
cp, valid and hostile, and workspace answers (a listing, then a tar
stream) for apply. Each seed is a byte of flags, 4 bytes that seed the
chunking, then the input (fuzz_extract.c says how it is read)."""
import hashlib
import io
import os
import sys
import tarfile

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus_extract")

CP, CONTENTS, ONE = 0, 2, 4
APPLY, FORCE = 1, 2


def entry(name, kind="f", data=b"", mode=None, link=""):
    return (name, kind, data, mode, link)


def tar(entries, fmt=tarfile.GNU_FORMAT):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
        for name, kind, data, mode, link in entries:
            i = tarfile.TarInfo(name)
            i.mtime = 1700000000
            if kind == "f":
                i.type, i.size, i.mode = tarfile.REGTYPE, len(data), 0o644 if mode is None else mode
                t.addfile(i, io.BytesIO(data))
                continue
            i.type = {"d": tarfile.DIRTYPE, "l": tarfile.SYMTYPE, "h": tarfile.LNKTYPE,
                      "p": tarfile.FIFOTYPE, "c": tarfile.CHRTYPE}[kind]
            i.mode = (0o755 if kind == "d" else 0o777) if mode is None else mode
            i.linkname = link
            t.addfile(i)
    # Without tarfile's padding to 10 KiB: the end's two zero blocks.
    data = buf.getvalue().rstrip(b"\0")
    return data + b"\0" * (-len(data) % 512 + 1024)


def listing(paths):
    """SCRIPT_MANIFEST's answer: paths as (path, type, mode, data or
    target); "." first, as find prints it."""
    names = b"".join(b"./" + p.encode() + b"\0" if p != "." else b".\0" for p, *_ in paths) + b"\0"
    kinds = {"f": 0o100000, "d": 0o040000, "l": 0o120000}
    stat = b"".join(b"%x %d %s\n" % (kinds[t] | m, len(d) if t != "d" else 4096,
                                     b"." if p == "." else b"./" + p.encode())
                    for p, t, m, d in paths)
    sums = b"".join(hashlib.sha256(d).hexdigest().encode() + b"  ./" + p.encode() + b"\n"
                    for p, t, m, d in paths if t == "f")
    return names + stat + b"--\n" + sums


def seed(name, flags, body):
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(bytes([flags]) + hashlib.sha256(name.encode()).digest()[:4] + body)


# ---- cp ----
valid = [entry("src/", "d"), entry("src/a", data=b"hello\n"), entry("src/d/", "d"),
         entry("src/d/b", data=b"b\n", mode=0o600), entry("src/sl", "l", link="a"),
         entry("src/h", "h", link="src/a")]
seed("cp-valid", CP, tar(valid))
seed("cp-valid-pax", CP, tar(valid, tarfile.PAX_FORMAT))
seed("cp-contents", CP | CONTENTS, tar([entry("./", "d"), entry("./a", data=b"a\n"),
                                        entry("./d/", "d"), entry("./d/b", data=b"b\n")]))
seed("cp-dotdot", CP, tar([entry("src/", "d"), entry("src/../../evil", data=b"evil\n")]))
seed("cp-dotdot-contents", CP | CONTENTS, tar([entry("../sentinel/keep", data=b"evil\n")]))
seed("cp-absolute", CP | CONTENTS, tar([entry("/tmp/fuzz-extract-evil", data=b"evil\n")]))
seed("cp-link-out-then-file", CP, tar([entry("src/", "d"), entry("src/out", "l", link="../../sentinel"),
                                        entry("src/out/keep", data=b"evil\n")]))
seed("cp-abs-link-then-file", CP, tar([entry("src/", "d"), entry("src/out", "l", link="/tmp"),
                                        entry("src/out/fuzz-extract-evil", data=b"evil\n")]))
seed("cp-link-in-then-file", CP, tar([entry("src/", "d"), entry("src/d/", "d"), entry("src/in", "l", link="d"),
                                       entry("src/in/x", data=b"x\n")]))
seed("cp-link-then-dir", CP, tar([entry("src/", "d"), entry("src/d/", "d"), entry("src/in", "l", link="d"),
                                   entry("src/in/", "d"), entry("src/in/y", data=b"y\n")]))
seed("cp-seeded-link", CP | CONTENTS, tar([entry("l/keep", data=b"evil\n"), entry("abs/", "d"),
                                            entry("abs/x", data=b"x\n")]))
seed("cp-seeded-link-src", CP, tar([entry("src/", "d"), entry("src/l/", "d"),
                                    entry("src/l/keep", data=b"evil\n")]))
seed("cp-hardlink-out", CP, tar([entry("src/", "d"), entry("src/h", "h", link="/etc/passwd"),
                                 entry("src/h2", "h", link="src/../../x")]))
seed("cp-hardlink-seeded", CP | CONTENTS, tar([entry("h", "h", link="l"), entry("h2", "h", link="src/l")]))
seed("cp-long-gnu", CP, tar([entry("src/", "d"), entry("src/" + "n" * 200, data=b"long\n"),
                             entry("src/" + "d" * 120 + "/", "d"),
                             entry("src/" + "d" * 120 + "/" + "f" * 150, data=b"deep\n")]))
seed("cp-long-pax", CP, tar([entry("src/", "d"), entry("src/" + "p" * 300, data=b"pax\n"),
                             entry("src/ln", "l", link="q" * 200)], tarfile.PAX_FORMAT))
seed("cp-retype", CP, tar([entry("src/", "d"), entry("src/x", data=b"x\n"), entry("src/x", "l", link="y"),
                           entry("src/x/", "d"), entry("src/x/z", data=b"z\n")]))
seed("cp-dir-over-file", CP, tar([entry("src/", "d"), entry("src/d/", "d"), entry("src/d", data=b"f\n")]))
seed("cp-one", CP | ONE, tar([entry("src", data=b"one\n"), entry("src/more", data=b"two\n")]))
seed("cp-modes", CP | CONTENTS, tar([entry("./", "d", mode=0), entry("./ro/", "d", mode=0o500),
                                     entry("./ro/f", data=b"r\n", mode=0o4755), entry("./fifo", "p"),
                                     entry("./dev", "c")]))
seed("cp-cut", CP, tar([entry("src/", "d"), entry("src/big", data=b"x" * 2000)])[:1500])

# ---- apply ----
# DIR's baseline (fuzz_extract.c's fz_dir_seed), less the links to
# P/sentinel's absolute path, which no seed can know: left out, they go.
# DIR's w is a link to P/sentinel where the baseline has a directory.
base = [(".", "d", 0o755, b""), ("a", "d", 0o755, b""), ("a/f", "f", 0o644, b"hello\n"),
        ("a/up", "l", 0o777, b"../../sentinel"), ("g", "f", 0o600, b"x"), (".git", "d", 0o755, b""),
        (".git/config", "f", 0o644, b"[core]\n"), ("l", "l", 0o777, b"../sentinel"),
        ("src", "d", 0o755, b""), ("src/l", "l", 0o777, b"../../sentinel"), ("w", "d", 0o755, b"")]
links = [entry(p, "l", link=d.decode()) for p, t, m, d in base if t == "l"]


def answer(paths, stream):
    return listing(paths) + b"=TAR=\n" + tar(stream)


def without(paths, *names):
    return [x for x in paths if x[0] not in names]


seed("apply-same", APPLY, answer(base, links))
changed = without(base, "a/f", "g") + [("a/f", "f", 0o644, b"hello world\n"), ("g", "f", 0o644, b"x"),
                                       ("n", "d", 0o700, b""), ("n/x", "f", 0o755, b"new\n")]
seed("apply-change", APPLY, answer(sorted(changed), links + [entry("./a/f", data=b"hello world\n"),
                                                             entry("./n/x", data=b"new\n", mode=0o755)]))
seed("apply-link-to-dir", APPLY | FORCE,
     answer(without(base, "l") + [("l", "d", 0o755, b""), ("l/keep", "f", 0o644, b"evil\n")],
            [x for x in links if x[0] != "l"] + [entry("./l/keep", data=b"evil\n")]))
seed("apply-link-to-file", APPLY | FORCE,
     answer(without(base, "a/up") + [("a/up", "f", 0o644, b"evil\n")],
            [x for x in links if x[0] != "a/up"] + [entry("./a/up", data=b"evil\n")]))
seed("apply-under-a-link", APPLY | FORCE,
     answer(base + [("l/keep", "f", 0o644, b"evil\n")], links + [entry("./l/keep", data=b"evil\n")]))
seed("apply-vcs", APPLY | FORCE,
     answer(without(base, ".git/config") + [(".git/config", "f", 0o644, b"[core]\nx\n"),
                                            (".git/hooks", "d", 0o755, b""),
                                            (".git/hooks/post-checkout", "f", 0o755, b"#!/bin/sh\n")],
            links + [entry("./.git/config", data=b"[core]\nx\n"),
                     entry("./.git/hooks/post-checkout", data=b"#!/bin/sh\n", mode=0o755)]))
seed("apply-bare", APPLY | FORCE,
     answer(base + [("b", "d", 0o755, b""), ("b/HEAD", "f", 0o644, b"ref\n"), ("b/objects", "d", 0o755, b""),
                    ("b/refs", "d", 0o755, b""), ("b/config", "f", 0o644, b"[core]\n")],
            links + [entry("./b/HEAD", data=b"ref\n"), entry("./b/config", data=b"[core]\n")]))
seed("apply-hardlink", APPLY, answer(base + [("p", "f", 0o644, b"same\n"), ("q", "f", 0o644, b"same\n")],
                                     links + [entry("./p", data=b"same\n"), entry("./q", "h", link="./p")]))
seed("apply-file-to-link", APPLY | FORCE,
     answer(without(base, "g") + [("g", "l", 0o777, b"a/f")], links + [entry("./g", "l", link="a/f")]))
seed("apply-lies", APPLY | FORCE,
     answer(base + [("z", "f", 0o644, b"said\n"), ("y", "f", 0o644, b"said\n")],
            links + [entry("./z", "l", link="a"), entry("./y", "d")]))
seed("apply-remove-all", APPLY | FORCE, answer([(".", "d", 0o755, b"")], []))
seed("apply-deep", APPLY, answer(base + [("n1", "d", 0o755, b""), ("n1/n2", "d", 0o500, b""),
                                         ("n1/n2/n3", "d", 0o755, b""), ("n1/n2/n3/f", "f", 0o600, b"f\n")],
                                 links + [entry("./n1/n2/n3/f", data=b"f\n", mode=0o600)]))
seed("apply-link-out", APPLY | FORCE, answer(base + [("o", "l", 0o777, b"/etc")],
                                              links + [entry("./o", "l", link="/etc")]))
seed("apply-staging-name", APPLY, answer(base + [(".sandbox-apply-0", "d", 0o755, b""),
                                                 (".sandbox-apply-0/x", "f", 0o644, b"x\n")],
                                         links + [entry("./.sandbox-apply-0/x", data=b"x\n")]))
seed("apply-through-dir-link", APPLY | FORCE,
     answer(base + [("w/keep", "f", 0o644, b"evil\n"), ("w/sub", "d", 0o755, b"")],
            links + [entry("./w/keep", data=b"evil\n")]))
