#!/usr/bin/env python3
"""Lints the web pages (Sources/*/Pages/*.html, .css, .js) — run by `make test`.

- HTML: parses (Python's html.parser), every non-void element closed in order, ids unique, the
  stylesheet and script it names exist beside it, and every element the script looks up by id
  (`$("x")`, `getElementById("x")`) is in the page.
- CSS: braces balance, every declaration is `property: value`.
- JavaScript: ESLint's recommended rules plus strict mode, `const`, `===` (scripts/pages.eslintrc.json),
  with Debian's eslint (scripts/setup.sh installs it).
Prints `file:line: problem` for each and exits 1 when there is any.
"""
import html.parser
import os
import re
import subprocess
import sys
from glob import glob

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
problems = []


class Page(html.parser.HTMLParser):
    def __init__(self, path):
        super().__init__(convert_charrefs=True)
        self.path, self.stack, self.ids, self.files = path, [], {}, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        line = self.getpos()[0]
        if "id" in a:
            if a["id"] in self.ids:
                problems.append(f"{self.path}:{line}: id '{a['id']}' also on line {self.ids[a['id']]}")
            self.ids[a["id"]] = line
        if tag == "link" and a.get("rel") == "stylesheet":
            self.files.append((a.get("href", ""), line))
        if tag == "script" and "src" in a:
            self.files.append((a["src"], line))
        if tag == "script" and "src" not in a:
            problems.append(f"{self.path}:{line}: inline script: keep the script in its own .js file")
        if tag == "style":
            problems.append(f"{self.path}:{line}: inline style: keep the style in its own .css file")
        if tag not in VOID:
            self.stack.append((tag, line))

    def handle_endtag(self, tag):
        line = self.getpos()[0]
        if not self.stack:
            problems.append(f"{self.path}:{line}: </{tag}> closes nothing")
            return
        open_tag, open_line = self.stack.pop()
        if open_tag != tag:
            problems.append(f"{self.path}:{line}: </{tag}> closes <{open_tag}> of line {open_line}")


def lint_html(path):
    text = open(path, encoding="utf-8").read()
    if not text.lower().startswith("<!doctype html>"):
        problems.append(f"{path}:1: the page must start with <!doctype html>")
    page = Page(path)
    page.feed(text)
    page.close()
    for tag, line in page.stack:
        problems.append(f"{path}:{line}: <{tag}> is never closed")
    folder = os.path.dirname(path)
    for name, line in page.files:
        if "/" in name or not os.path.isfile(os.path.join(folder, name)):
            problems.append(f"{path}:{line}: '{name}' is not a file beside the page")
            continue
        if name.endswith(".js"):
            script = open(os.path.join(folder, name), encoding="utf-8").read()
            for n, l in enumerate(script.split("\n"), 1):
                for ref in re.findall(r"""(?:\$|getElementById)\(\s*['"]([\w-]+)['"]\s*\)""", l):
                    if ref not in page.ids:
                        problems.append(f"{os.path.join(folder, name)}:{n}: no element with id '{ref}' in {os.path.basename(path)}")


def lint_css(path):
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), open(path, encoding="utf-8").read(), flags=re.S)
    line, starts = 1, []  # where each open block's content starts
    for i, ch in enumerate(text):
        if ch == "\n":
            line += 1
        elif ch == "{":
            starts.append(i + 1)
        elif ch == "}":
            if not starts:
                problems.append(f"{path}:{line}: '}}' closes nothing")
                continue
            block = text[starts.pop():i]
            if "{" not in block:  # a rule's declarations (not an @media block of rules)
                for decl in filter(str.strip, block.split(";")):
                    if not re.match(r"^\s*(--)?[a-z-]+\s*:\s*\S", decl):
                        problems.append(f"{path}:{line}: '{decl.strip()[:40]}' is not 'property: value'")
    if starts:
        problems.append(f"{path}:{line}: {len(starts)} block(s) never closed")


def lint_js(paths):
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, NODE_PATH="/usr/share/nodejs")  # Debian's eslint finds its modules there
    try:
        r = subprocess.run(["eslint", "-f", "unix", "--no-eslintrc", "--no-ignore", "-c", os.path.join(here, "pages.eslintrc.json"), *paths],
                           capture_output=True, text=True, env=env)
    except FileNotFoundError:
        problems.append("eslint is not installed: run scripts/setup.sh")
        return
    if r.returncode not in (0, 1) or (r.returncode == 1 and ": " not in r.stdout):
        problems.append(f"eslint failed: {(r.stderr or r.stdout).strip()[:400]}")
    problems.extend(l for l in r.stdout.splitlines() if re.match(r"^/.*:\d+:\d+: ", l))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "Sources"
    pages = sorted(glob(f"{root}/*/Pages/*.html"))
    if not pages:
        print(f"lint-pages: no pages under {root}/*/Pages", file=sys.stderr)
        return 2
    for p in pages:
        lint_html(p)
    for p in sorted(glob(f"{root}/*/Pages/*.css")):
        lint_css(p)
    lint_js(sorted(glob(f"{root}/*/Pages/*.js")))
    for p in problems:
        print(p)
    files = len(glob(f"{root}/*/Pages/*"))
    print(f"lint-pages: {files} files, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
