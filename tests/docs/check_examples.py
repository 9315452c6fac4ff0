"""Checks the examples of one documentation page (README.md or docs/*.md) against the tools.

    check_examples.py options PAGE TOOLS_DIR
    check_examples.py run     PAGE TOOLS_DIR DATA_DIR

options: every relative link and image of the page must name a file that exists (and a heading
of it, for `#anchor`), and every option an example passes to an msdt tool must be one the tool has. An example is a
line of a fenced code block (console, sh, yaml, …; in a console block only the `$ ` lines) or an
inline code span that starts with a tool's name; its long options (--name, --name=value) must
appear in `TOOL --help`, and so must its single-dash options (-o, -out), whatever follows them.

run: every ```console block is a transcript, run for real. Its `$ COMMAND` lines (a trailing `\\`
continues a command) run one after the other in bash, in a fresh copy of DATA_DIR (the data of
scripts/demo-data) that the whole page shares, so a later command sees what an earlier one wrote.
What a command prints, standard output and standard error together, must be the lines that
follow it up to the next `$ ` line: compared line by line, trailing blanks ignored, a line `…`
standing for any number of lines (output shortened on the page); numbers that agree to nine
digits are the same (sums' last digits vary between CPUs), and then so are the column widths. A command whose output on the
page holds a tab, that prints nothing, or that ends in a pipeline (`| jq`, `| head`) runs with its
output into a pipe (TSV, no progress bar, no colours); any other runs on a pseudo-terminal, as
the aligned tables on the page were made. A command
that needs a program that is not installed (jq, dot) is skipped with a note.

Illustrations on data the demo does not have go in ```sh blocks, which only the options check
reads. Exit status: 0 pass, 1 fail (each problem is one line on stderr, a mismatch with a diff).
"""

import difflib
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import tempfile

# The tools: every program with a man page (man/TOOL.1), so a new tool is checked once it has one.
SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOLS = sorted(name[:-2] for name in os.listdir(os.path.join(SOURCE_DIR, "man"))
               if name.endswith(".1"))
ELLIPSIS = "…"
TIMEOUT = 300

failures = 0


def fail(page, line, message):
    global failures
    failures += 1
    print(f"FAIL: {page}:{line}: {message}", file=sys.stderr)


def code_blocks(text):
    """(language, first line number, [lines]) of every fenced block."""
    blocks = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)```(\S*)\s*$", lines[i])
        if m:
            indent, lang = m.group(1), m.group(2)
            body = []
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
                j += 1
            blocks.append((lang, i + 2, body))
            i = j + 1
        else:
            i += 1
    return blocks


def joined(lines):
    """Lines with `\\` continuations joined: (index of the first line, text)."""
    out = []
    pending, start = None, 0
    for n, line in enumerate(lines):
        if pending is None:
            start = n
            pending = line
        else:
            pending += " " + line.lstrip()
        if pending.endswith("\\"):
            pending = pending[:-1].rstrip()
            continue
        out.append((start, pending))
        pending = None
    if pending is not None:
        out.append((start, pending))
    return out


# --- options -------------------------------------------------------------------------------------

def prose_lines(text):
    """(line number, line) of every line outside the fenced code blocks, the fences included."""
    in_block = False
    for number, line in enumerate(text.split("\n"), 1):
        if re.match(r"^\s*```", line):
            in_block = not in_block
            continue
        if not in_block:
            yield number, line


def help_text(tools_dir, tool, cache={}):
    if tool not in cache:
        result = subprocess.run([os.path.join(tools_dir, tool), "--help"], capture_output=True,
                                text=True, errors="replace")
        cache[tool] = result.stdout + result.stderr
    return cache[tool]


TOOL_CALL = re.compile(r"(?:^|[\s|;&(`'\"{])(" + "|".join(map(re.escape, TOOLS)) + r")(?=\s|$)")
# Where a tool's own arguments end: a pipe, a list operator, a redirection, the end of a command
# substitution or of a quoted `sh -c` script.
ARGS_END = re.compile(r"\s\|\|?\s|\s&&\s|;(\s|$)|\s[0-9]?>|\s<\s|\)(\s|$)|'(\s|;|$)|`")


def check_options_in(page, line_number, text, tools_dir):
    text = re.sub(r"\s#\s.*$", "", text)  # a trailing comment
    for m in TOOL_CALL.finditer(text):
        tool = m.group(1)
        rest = text[m.end():]
        end = ARGS_END.search(rest)
        if end:
            rest = rest[:end.start()]
        help_ = help_text(tools_dir, tool)
        for token in rest.split():
            token = token.strip("\"")
            long_ = re.match(r"^(--[A-Za-z0-9][A-Za-z0-9_-]*)", token)
            short = re.match(r"^(-[A-Za-z][A-Za-z]*)$", token)
            option = long_.group(1) if long_ else short.group(1) if short else None
            if option and not re.search(r"(^|[^A-Za-z0-9_-])" + re.escape(option) +
                                        r"([^A-Za-z0-9_-]|$)", help_):
                fail(page, line_number, f"{tool} has no option {option} ({tool} --help): {text.strip()}")


def check_options(page, tools_dir):
    text = open(page, encoding="utf-8").read()
    missing = [t for t in TOOLS if not os.access(os.path.join(tools_dir, t), os.X_OK)]
    if missing:
        print(f"SKIP: not built: {' '.join(missing)}")
        sys.exit(77)
    for lang, first, body in code_blocks(text):
        if lang == "json":
            continue
        for n, line in joined(body):
            if lang == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            elif line.lstrip().startswith("#"):
                continue
            check_options_in(page, first + n, line, tools_dir)
    # Inline code spans outside the blocks that start with a tool's name.
    for number, line in prose_lines(text):
        for span in re.findall(r"`([^`]+)`", line):
            if any(span.startswith(t + " ") for t in TOOLS):
                check_options_in(page, number, span, tools_dir)


# --- links ---------------------------------------------------------------------------------------

def anchors(path):
    """GitHub's anchors of a Markdown file's headings."""
    out = set()
    for _, line in prose_lines(open(path, encoding="utf-8").read()):
        if re.match(r"^#{1,6} ", line):
            title = line.lstrip("#").strip().lower()
            out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


def check_links(page):
    """Every relative link and image of the page names a file that exists, and a heading there."""
    text = open(page, encoding="utf-8").read()
    for number, line in prose_lines(text):
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(full):
                fail(page, number, f"link to {target}: {full} does not exist")
            elif anchor and full.endswith(".md") and anchor not in anchors(full):
                fail(page, number, f"link to {target}: no such heading in {full}")


# --- run -----------------------------------------------------------------------------------------

def transcripts(text):
    """(line number, command, [expected lines]) of every console block, in page order."""
    out = []
    for lang, first, body in code_blocks(text):
        if lang != "console":
            continue
        current = None
        n = 0
        while n < len(body):
            line = body[n]
            if line.startswith("$ "):
                command, start = line[2:], n
                while command.endswith("\\") and n + 1 < len(body):
                    n += 1
                    command = command[:-1].rstrip() + " " + body[n].lstrip()
                current = (first + start, command, [])
                out.append(current)
            elif current is not None:
                current[2].append(line)
            n += 1
    return out


def run_in_pipe(command, cwd, env):
    result = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT)
    return result.stdout.decode("utf-8", "replace")


def run_on_terminal(command, cwd, env):
    controller, terminal = pty.openpty()
    process = subprocess.Popen(["bash", "-c", command], cwd=cwd, env=env,
                               stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal)
    os.close(terminal)
    chunks = []
    while True:
        ready, _, _ = select.select([controller], [], [], TIMEOUT)
        if not ready:
            process.kill()
            break
        try:
            data = os.read(controller, 65536)
        except OSError:  # EIO: every writer has closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    process.wait()
    os.close(controller)
    return b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")


NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?")


def same_line(expected, actual):
    """Equal, or equal but for the last digits of numbers and the blanks between columns.

    The statistics and distance kernels sum in the lanes of the CPU's widest vector unit
    (tensor/stats_kernel.h), so a sum's last digits, and with them the width of an aligned column,
    vary between CPUs; numbers that agree to 1e-9 (relative, or 1e-12 absolute) are the same.
    """
    if expected == actual:
        return True
    e_parts, a_parts = NUMBER.split(expected), NUMBER.split(actual)
    e_numbers, a_numbers = NUMBER.findall(expected), NUMBER.findall(actual)
    if len(e_numbers) != len(a_numbers):
        return False
    if [" ".join(p.split()) for p in e_parts] != [" ".join(p.split()) for p in a_parts]:
        return False
    for x, y in zip(e_numbers, a_numbers):
        if x == y:
            continue
        u, v = float(x), float(y)
        if abs(u - v) > max(1e-9 * max(abs(u), abs(v)), 1e-12):
            return False
    return True


def matches(expected, actual):
    """Whether the actual lines match the expected ones, a line `…` standing for any run."""
    memo = {}

    def at(i, j):
        if (i, j) in memo:
            return memo[i, j]
        if i == len(expected):
            ok = j == len(actual)
        elif expected[i] == ELLIPSIS:
            ok = any(at(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            ok = j < len(actual) and same_line(expected[i], actual[j]) and at(i + 1, j + 1)
        memo[i, j] = ok
        return ok

    return at(0, 0)


def needs_missing_program(command):
    for program in ("jq", "dot", "python3"):
        if re.search(r"(^|[|;&]\s*)" + program + r"\s", command) and not shutil.which(program):
            return program
    return None


def check_run(page, tools_dir, data_dir):
    text = open(page, encoding="utf-8").read()
    steps = transcripts(text)
    if not steps:
        print(f"{page}: no console example")
        return
    missing = [t for t in TOOLS if not os.access(os.path.join(tools_dir, t), os.X_OK)]
    if missing:
        print(f"SKIP: not built: {' '.join(missing)}")
        sys.exit(77)
    env = dict(os.environ)
    # /usr/bin first after the tools: the examples' python3 is the system one, with NumPy.
    env["PATH"] = os.pathsep.join([os.path.abspath(tools_dir), "/usr/bin", env.get("PATH", "")])
    env["LC_ALL"] = "C.UTF-8"
    env["TZ"] = "UTC"
    with tempfile.TemporaryDirectory() as work:
        cwd = os.path.join(work, "example")
        shutil.copytree(data_dir, cwd, symlinks=True)
        for line_number, command, expected in steps:
            program = needs_missing_program(command)
            if program:
                print(f"note: {page}:{line_number}: skipped, {program} is not installed: {command}")
                continue
            expected = [l.rstrip() for l in expected]
            while expected and expected[-1] == "":
                expected.pop()
            try:
                if not expected or " | " in command or any("\t" in l for l in expected):
                    output = run_in_pipe(command, cwd, env)
                else:
                    output = run_on_terminal(command, cwd, env)
            except subprocess.TimeoutExpired:
                fail(page, line_number, f"timed out after {TIMEOUT} s: {command}")
                continue
            actual = [l.rstrip() for l in output.split("\n")]
            while actual and actual[-1] == "":
                actual.pop()
            if not matches(expected, actual):
                fail(page, line_number, f"the output of `{command}` is not what the page shows:")
                diff = difflib.unified_diff(expected, actual, "page", "actual", lineterm="", n=1)
                for n, line in enumerate(diff):
                    if n == 60:
                        print("  …", file=sys.stderr)
                        break
                    print("  " + line, file=sys.stderr)
        print(f"{page}: {len(steps)} command(s) run")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("options", "run"):
        print(__doc__, file=sys.stderr)
        return 2
    if sys.argv[1] == "options":
        check_links(sys.argv[2])
        check_options(sys.argv[2], sys.argv[3])
    else:
        if len(sys.argv) != 5:
            print(__doc__, file=sys.stderr)
            return 2
        check_run(sys.argv[2], sys.argv[3], sys.argv[4])
    if failures:
        print(f"{failures} check(s) failed", file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
