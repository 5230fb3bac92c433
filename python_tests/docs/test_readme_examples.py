"""The README's examples, run as written.

Every ```python block of README.md runs in a fresh Python process, in a folder of its own,
with the installed package. A line whose comment starts with ``# ->`` states what the line
gives, and is checked:

* ``expression  # -> LITERAL``: the expression's value equals the Python literal;
* ``print(...)  # -> TEXT``: the call prints exactly ``TEXT``.

The stated value ends at the first run of two spaces; what follows is commentary. A ``# ->``
anywhere else (on a statement that is not an expression) is an error, so that no stated value
goes unchecked by mistake.

A block that needs something the test cannot provide (a running server, a network peer) says
so on its first line, ``# needs: WHAT``; it is compiled, then skipped with that reason. No
other block is skipped.

Every ``pip install '...[EXTRA]'`` in the README installs from the checkout (``.``) and names
extras that pyproject.toml defines.
"""

from __future__ import annotations

import ast
import io
import pickle
import re
import subprocess
import sys
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PYPROJECT = ROOT / "pyproject.toml"

ARROW = "# ->"
NEEDS = re.compile(r"#\s*needs:\s*(?P<what>\S.*)")
SECONDS = 300  # each block; the slowest (the server and two clients) takes a few seconds

PRELUDE = '''
import contextlib as _readme_contextlib
import io as _readme_io
import sys as _readme_sys


def __readme_value__(value, expected, stated, line):
    if value != expected:
        raise AssertionError(f"README.md line {line}: the line gives {value!r}; the README says {stated}")


def __readme_printed__(call, stated, line):
    buffer = _readme_io.StringIO()
    with _readme_contextlib.redirect_stdout(buffer):
        call()
    printed = buffer.getvalue()
    _readme_sys.stdout.write(printed)
    if printed.rstrip("\\n") != stated:
        raise AssertionError(f"README.md line {line}: the line prints {printed!r}; the README says {stated}")
'''

RUNNER = """
import pickle, sys
tree, prelude, filename = pickle.loads(sys.stdin.buffer.read())
namespace = {"__name__": "__main__"}
exec(prelude, namespace)
exec(compile(tree, filename, "exec"), namespace)
"""


@dataclass(frozen=True)
class Block:
    """A ```python block: its source, and the README line of its first line of code."""

    line: int
    source: str

    @property
    def needs(self) -> str | None:
        """What the block says it needs (its first line, ``# needs: WHAT``), else None."""
        first = self.source.lstrip().splitlines()[0] if self.source.strip() else ""
        found = NEEDS.fullmatch(first.strip())
        return found["what"].strip() if found else None


def python_blocks(text: str) -> list[Block]:
    """Every ```python block of a Markdown text, in order."""
    lines = text.splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```python":
            start = index + 1
            end = start
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            assert end < len(lines), f"README.md line {index + 1}: the ```python block is never closed"
            blocks.append(Block(start + 1, "\n".join(lines[start:end]) + "\n"))
            index = end
        index += 1
    return blocks


def stated_values(source: str) -> dict[int, str]:
    """The ``# ->`` comments of a block by line (from 1): the stated value, commentary cut off."""
    stated: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and token.string.startswith(ARROW):
            value = re.split(r"\s{2,}", token.string[len(ARROW) :].strip(), maxsplit=1)[0]
            stated[token.start[0]] = value
    return stated


class CheckStatedValues(ast.NodeTransformer):
    """Turns each expression statement with a ``# ->`` comment into a call that checks it."""

    def __init__(self, stated: dict[int, str], first_line: int) -> None:
        self.stated = stated
        self.first_line = first_line
        self.checked: set[int] = set()

    def readme_line(self, line: int) -> int:
        return self.first_line + line - 1

    def visit_Expr(self, node: ast.Expr) -> ast.Expr:
        line = node.end_lineno
        if line is None or line not in self.stated:
            return node
        self.checked.add(line)
        text = self.stated[line]
        where = ast.Constant(self.readme_line(line))
        value = node.value
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "print":
            call = ast.Lambda(
                args=ast.arguments(
                    posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
                ),
                body=value,
            )
            check = ast.Call(ast.Name("__readme_printed__", ast.Load()), [call, ast.Constant(text), where], [])
        else:
            try:
                ast.literal_eval(text)
                expected = ast.parse(text, mode="eval").body
            except (ValueError, SyntaxError, TypeError):
                raise AssertionError(
                    f"README.md line {self.readme_line(line)}: the stated value {text!r} is not a Python literal"
                ) from None
            check = ast.Call(
                ast.Name("__readme_value__", ast.Load()), [value, expected, ast.Constant(text), where], []
            )
        return ast.copy_location(ast.Expr(check), node)


def checked_tree(block: Block) -> ast.Module:
    """The block's code, every stated value turned into a check, with the README's line numbers."""
    tree = ast.parse(block.source, filename=str(README))
    stated = stated_values(block.source)
    transformer = CheckStatedValues(stated, block.line)
    tree = transformer.visit(tree)
    assert isinstance(tree, ast.Module)
    unchecked = sorted(set(stated) - transformer.checked)
    assert not unchecked, (
        f"README.md line {transformer.readme_line(unchecked[0])}: a `# ->` comment on a line that is "
        "not an expression statement, so nothing checks it"
    )
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, block.line - 1)
    return tree


def run_block(block: Block, folder: Path) -> subprocess.CompletedProcess[str]:
    payload = pickle.dumps((checked_tree(block), PRELUDE, str(README)))
    with subprocess.Popen(
        [sys.executable, "-c", RUNNER],
        cwd=folder,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        try:
            out, err = process.communicate(payload, timeout=SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
            pytest.fail(
                f"the README's example at line {block.line} did not finish in {SECONDS} s\n"
                f"{err.decode(errors='replace')}"
            )
    return subprocess.CompletedProcess(
        process.args, process.returncode, out.decode(errors="replace"), err.decode(errors="replace")
    )


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_the_readme_has_its_examples() -> None:
    # A change to the fences' format must not leave this file testing nothing.
    assert len(BLOCKS) >= 8
    assert sum(len(stated_values(block.source)) for block in BLOCKS) >= 20
    assert any("gokata.client" in block.source and block.needs is None for block in BLOCKS), (
        "the Internet play example with a server of its own runs"
    )


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line-{block.line}" for block in BLOCKS])
def test_readme_example_runs_as_written(block: Block, tmp_path: Path) -> None:
    tree = checked_tree(block)  # a block that is skipped must still be Python, and its `# ->` lines checkable
    compile(tree, str(README), "exec")
    if block.needs is not None:
        pytest.skip(f"README.md line {block.line}: the example needs {block.needs}")
    result = run_block(block, tmp_path)
    assert result.returncode == 0, (
        f"the README's example at line {block.line} failed:\n{result.stderr}\n(its output:\n{result.stdout})"
    )


# The checker itself


def test_stated_values_are_checked_and_commentary_is_not() -> None:
    source = 'x = 2\nx + 1  # -> 3  (commentary: not part of the value)\nprint("a b")  # -> a b\n'
    tree = checked_tree(Block(10, source))
    namespace: dict[str, object] = {"__name__": "__main__"}
    exec(PRELUDE, namespace)
    exec(compile(tree, "README.md", "exec"), namespace)
    wrong = checked_tree(Block(10, "1 + 1  # -> 3\n"))
    with pytest.raises(AssertionError, match="README.md line 10"):
        exec(compile(wrong, "README.md", "exec"), dict(namespace))
    wrong_print = checked_tree(Block(20, 'print("no")  # -> yes\n'))
    with pytest.raises(AssertionError, match="README.md line 20"):
        exec(compile(wrong_print, "README.md", "exec"), dict(namespace))


def test_a_stated_value_on_a_statement_is_refused() -> None:
    with pytest.raises(AssertionError, match="not an expression statement"):
        checked_tree(Block(5, "x = 1  # -> 1\n"))
    with pytest.raises(AssertionError, match="not a Python literal"):
        checked_tree(Block(5, "len('ab')  # -> two\n"))


def test_needs_is_read_from_the_first_line_only() -> None:
    assert Block(1, "# needs: a server at 127.0.0.1:8080\nimport gokata\n").needs == "a server at 127.0.0.1:8080"
    assert Block(1, "import gokata\n# needs: a server\n").needs is None


# Install lines


def optional_dependencies() -> set[str]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        tomllib = pytest.importorskip("tomli")
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    return set(project["optional-dependencies"])


PIP_EXTRAS = re.compile(r"""pip install\s+(?P<quote>['"]?)(?P<target>[^\s'"\[\]]*)\[(?P<extras>[^\]]*)\](?P=quote)""")


def test_every_install_line_names_extras_that_exist() -> None:
    readme = README.read_text(encoding="utf-8")
    defined = optional_dependencies()
    found = list(PIP_EXTRAS.finditer(readme))
    assert len(found) >= 3  # env, client, numpy at least
    for match in found:
        line = readme.count("\n", 0, match.start()) + 1
        assert match["target"] == ".", (
            f"README.md line {line}: {match[0]} installs from an index; from a checkout it is pip install '.[...]'"
        )
        extras = {extra.strip() for extra in match["extras"].split(",")}
        assert extras <= defined, f"README.md line {line}: {match[0]} names {sorted(extras - defined)}, not in pyproject.toml"


def test_no_install_line_asks_an_index_for_gokata() -> None:
    readme = README.read_text(encoding="utf-8")
    assert not re.search(r"pip install\s+['\"]?gokata\b", readme)
