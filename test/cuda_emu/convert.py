#!/usr/bin/env python3
# ===- convert.py - A CUDA kernel file as host C++ for the emulator -------=== #
#
# Turns one .cu file of runtime/backends/cuda/kernels into C++ that the host
# compiler builds against Emulator.h, changing only what has no host
# spelling:
#   - each launch `kernel<<<grid, block[, shmem[, stream]]>>>(args)` becomes
#     `::tpc_emu::launch("File.cu:line kernel", [&](auto... a) { kernel(a...);
#     }, grid, block[, shmem[, stream]])(args)`;
#   - each `__shared__ T name[N]...;` becomes a reference to the block's
#     copy, and `extern __shared__ T name[];` a pointer to the block's
#     dynamic shared memory;
#   - `#pragma unroll` lines become comments (the host compiler warns about
#     a pragma it does not know).
# Everything else, comments and line breaks included, is kept, and a #line
# directive points the compiler's messages at the original file. Includes
# stay: the CUDA headers they name resolve to the emulator's.
#
# Usage: convert.py INPUT.cu OUTPUT.cpp, or convert.py --self-test, which
# checks the rewrites on a sample with every form (CTest runs it).
#
# ===----------------------------------------------------------------------=== #

import os
import re
import sys


class ConvertError(Exception):
    pass


def mask_comments_and_strings(text):
    """text with comments and string and character literals blanked (line
    breaks kept), so that searches only see code."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise ConvertError("unterminated comment")
            j += 2
        elif c == "'" and i > 0 and text[i - 1].isalnum():
            i += 1  # a digit separator (1'000), not a literal
            continue
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            j += 1
        else:
            i += 1
            continue
        for k in range(i, min(j, n)):
            if out[k] != "\n":
                out[k] = " "
        i = j
    return "".join(out)


def split_top_level(s):
    """s split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(s):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(s[start:i])
            start = i + 1
    parts.append(s[start:])
    return parts


def kernel_start(masked, end):
    """Where the kernel expression ending at `end` (before `<<<`) starts:
    a name, possibly qualified, with template arguments."""
    i = end
    while i > 0 and masked[i - 1].isspace():
        i -= 1
    if i > 0 and masked[i - 1] == ">":
        depth = 0
        while i > 0:
            i -= 1
            if masked[i] == ">":
                depth += 1
            elif masked[i] == "<":
                depth -= 1
                if depth == 0:
                    break
        else:
            raise ConvertError("unbalanced template arguments before <<<")
    while i > 0 and (masked[i - 1].isalnum() or masked[i - 1] in "_:"):
        i -= 1
    return i


def config_end(masked, start):
    """The index of the `>>>` that closes the configuration at `start`."""
    depth, i, n = 0, start, len(masked)
    while i < n:
        c = masked[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and masked.startswith(">>>", i):
            return i
        i += 1
    raise ConvertError("no >>> closes the launch configuration")


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def convert_launches(text, masked, filename):
    edits = []
    for m in re.finditer(r"<<<", masked):
        begin = kernel_start(masked, m.start())
        name = " ".join(text[begin : m.start()].split())
        if not name:
            raise ConvertError(
                "line %d: no kernel before <<<" % line_of(text, m.start())
            )
        end = config_end(masked, m.end())
        config = text[m.end() : end]
        if not 2 <= len(split_top_level(masked[m.end() : end])) <= 4:
            raise ConvertError(
                "line %d: a launch takes 2 to 4 configuration arguments"
                % line_of(text, m.start())
            )
        where = "%s:%d %s" % (filename, line_of(text, begin), name)
        replacement = (
            '::tpc_emu::launch("%s", '
            "[&](auto... tpc_emu_a) { %s(tpc_emu_a...); },"
            % (where.replace("\\", "\\\\").replace('"', '\\"'), name)
        )
        # Keep the line breaks between the name and <<< so that every
        # later line keeps its number.
        replacement += "\n" * text.count("\n", begin, m.end())
        replacement += config + ")"
        edits.append((begin, end + 3, replacement))
    return edits


SHARED = re.compile(
    r"(?P<extern>\bextern\s+)?\b__shared__\s+(?P<decl>[^;{}]*?);", re.S
)
ALIGN = re.compile(r"__align__\s*\(\s*\d+\s*\)")
DECLARATOR = re.compile(
    r"^(?P<type>.*?\S)\s*\b(?P<name>[A-Za-z_]\w*)"
    r"\s*(?P<dims>(\[[^\]]*\]\s*)*)$",
    re.S,
)


def inside_functions(masked):
    """For each offset, whether it lies inside a function body (a brace
    that does not open a namespace or extern "C" block)."""
    inside = [False] * (len(masked) + 1)
    stack = []
    for i, c in enumerate(masked):
        if c == "{":
            head = masked[max(0, i - 200) : i]
            is_namespace = re.search(
                r"(\bnamespace(\s+[\w:]+)?|\bextern\s+\"C\")\s*$", head
            ) or re.search(r"\bextern\s*$", head)
            stack.append(not is_namespace)
        elif c == "}" and stack:
            stack.pop()
        inside[i + 1] = any(stack)
    return inside


def convert_shared(text, masked, inside):
    edits = []
    for count, m in enumerate(SHARED.finditer(masked)):
        line = line_of(text, m.start())
        if not inside[m.start()]:
            raise ConvertError(
                "line %d: __shared__ outside a function is not supported" % line
            )
        decl = ALIGN.sub(" ", text[m.start("decl") : m.end("decl")])
        if "," in decl:
            raise ConvertError(
                "line %d: declare one __shared__ variable per statement" % line
            )
        d = DECLARATOR.match(decl.strip())
        if not d:
            raise ConvertError(
                "line %d: cannot read the __shared__ declaration" % line
            )
        type_ = " ".join(d.group("type").split())
        name = d.group("name")
        dims = "".join(d.group("dims").split())
        if m.group("extern"):
            if dims != "[]":
                raise ConvertError(
                    "line %d: extern __shared__ takes an array of unknown size"
                    % line
                )
            new = "%s *%s = static_cast<%s *>(::tpc_emu::dynamic_shared());" % (
                type_,
                name,
                type_,
            )
        else:
            tag = "tpc_emu_shared_%d" % count
            new = "static char %s; auto &%s = " % (tag, name)
            new += "*::tpc_emu::block_shared<%s%s>(&%s);" % (type_, dims, tag)
        new += "\n" * text.count("\n", m.start(), m.end())
        edits.append((m.start(), m.end(), new))
    return edits


def convert_pragmas(text, masked):
    edits = []
    pragma = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+unroll\b[^\n]*", re.M)
    for m in pragma.finditer(masked):
        line = text[m.start() : m.end()].strip()
        edits.append((m.start(), m.end(), "// " + line))
    return edits


def convert(text, path):
    filename = os.path.basename(path)
    masked = mask_comments_and_strings(text)
    inside = inside_functions(masked)
    edits = (
        convert_launches(text, masked, filename)
        + convert_shared(text, masked, inside)
        + convert_pragmas(text, masked)
    )
    edits.sort()
    for (a0, a1, _), (b0, _, _) in zip(edits, edits[1:]):
        if b0 < a1:
            line = line_of(text, b0)
            raise ConvertError("overlapping rewrites at line %d" % line)
    out, last = [], 0
    for begin, end, new in edits:
        out.append(text[last:begin])
        out.append(new)
        last = end
    out.append(text[last:])
    header = (
        "// Generated by test/cuda_emu/convert.py from %s; do not edit.\n"
        '#include "test/cuda_emu/Emulator.h"\n'
        '#line 1 "%s"\n' % (filename, os.path.abspath(path))
    )
    return header + "".join(out)


SAMPLE = r"""
// kernel<<<1, 2>>>() in a comment stays
template <class T, int N> __global__ void k(T *p, const char *s) {
  __shared__ __align__(16) float tile[N][N + 1];
  extern __shared__ __align__(16) unsigned char smem[];
#pragma unroll 4
  for (int i = 0; i < 4; ++i)
    p[i] = T(tile[i][0]) + smem[i];
}
void f(float *p, cudaStream_t st) {
  const char *s = "k<<<1, 1>>>() in a string stays";
  k<float, 4><<<dim3(2, min(3, 4)), 32>>>(p, s);
  k<float, 4>
      <<<1, 64, 128>>>(p, s);
  ns::g<<<grid_for(n), kThreads, 0, st>>>(p,
                                           s);
}
"""


def self_test():
    """Converts SAMPLE and checks what each rewrite gives."""
    out = convert(SAMPLE, "Sample.cu")
    body = out.split("\n", 3)[3]
    expect = [
        "// kernel<<<1, 2>>>() in a comment stays",
        '"k<<<1, 1>>>() in a string stays"',
        "static char tpc_emu_shared_0; auto &tile = "
        "*::tpc_emu::block_shared<float[N][N+1]>(&tpc_emu_shared_0);",
        "unsigned char *smem = static_cast<unsigned char *>"
        "(::tpc_emu::dynamic_shared());",
        "// #pragma unroll 4",
        '::tpc_emu::launch("Sample.cu:12 k<float, 4>", [&](auto... tpc_emu_a) '
        "{ k<float, 4>(tpc_emu_a...); },dim3(2, min(3, 4)), 32)(p, s);",
        '::tpc_emu::launch("Sample.cu:13 k<float, 4>", [&](auto... tpc_emu_a) '
        "{ k<float, 4>(tpc_emu_a...); },\n1, 64, 128)(p, s);",
        '::tpc_emu::launch("Sample.cu:15 ns::g", [&](auto... tpc_emu_a) '
        "{ ns::g(tpc_emu_a...); },grid_for(n), kThreads, 0, st)(p,",
    ]
    failed = [e for e in expect if e not in body]
    if body.count("\n") != SAMPLE.count("\n"):
        failed.append("the line count changed")
    refused = [
        ("void f() { k<<<1>>>(p); }", "one configuration argument"),
        ("void f() { k<<<1, 2, 3, 4, 5>>>(p); }", "five arguments"),
        ("void f() { __shared__ float a[2], b[2]; }", "two declarators"),
        ("__shared__ float g[2];", "__shared__ at namespace scope"),
    ]
    for bad, why in refused:
        try:
            convert(bad, "Bad.cu")
            failed.append("accepted " + why)
        except ConvertError:
            pass
    for f in failed:
        sys.stderr.write("convert.py self-test: %s\n" % f)
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 3:
        sys.stderr.write("usage: convert.py IN.cu OUT.cpp | --self-test\n")
        return 2
    src, dst = argv[1], argv[2]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    try:
        result = convert(text, src)
    except ConvertError as e:
        sys.stderr.write("%s: %s\n" % (src, e))
        return 1
    tmp = dst + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(result)
    os.replace(tmp, dst)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
