"""Reads the YAML subset that Examples/CI/healthkit.yml is written in: block mappings and sequences, `- key: value`
items, plain and quoted scalars, flow sequences `[a, b]`, literal `|` and folded `>` block scalars, `#` comments.

Anything outside that subset (anchors, flow mappings, tags, multi-document files) is a WorkflowError naming the
line, so the checker never runs a step it misread.
"""
import re


class WorkflowError(Exception):
    """A line of the workflow this reader does not understand: `path:line: message`."""


class _Line:
    def __init__(self, number, raw):
        self.number = number
        self.raw = raw.rstrip("\n")
        stripped = self.raw.lstrip(" ")
        self.indent = len(self.raw) - len(stripped)
        self.text = _strip_comment(stripped)


def _strip_comment(text):
    if text.startswith("#"):
        return ""
    quote = None
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and index > 0 and text[index - 1] == " ":
            return text[:index].rstrip()
    return text.rstrip()


def parse(path):
    """Parses the workflow file at `path` into dicts, lists and strings."""
    with open(path, encoding="utf-8") as handle:
        lines = [_Line(n, raw) for n, raw in enumerate(handle, start=1)]
    reader = _Reader(path, lines)
    value = reader.block(0)
    if reader.peek() is not None:
        raise reader.error(reader.peek(), "unexpected indentation")
    return value


class _Reader:
    def __init__(self, path, lines):
        self.path = path
        self.lines = lines
        self.index = 0

    def error(self, line, message):
        return WorkflowError(f"{self.path}:{line.number}: {message}")

    def peek(self):
        while self.index < len(self.lines) and not self.lines[self.index].text:
            self.index += 1
        return self.lines[self.index] if self.index < len(self.lines) else None

    def block(self, indent):
        line = self.peek()
        if line is None or line.indent < indent:
            return None
        if line.text.startswith("- ") or line.text == "-":
            return self.sequence(line.indent)
        return self.mapping(line.indent)

    def sequence(self, indent):
        items = []
        while (line := self.peek()) is not None and line.indent == indent and line.text.startswith("-"):
            rest = line.text[1:].lstrip(" ")
            if not rest:
                self.index += 1
                items.append(self.block(indent + 1))
                continue
            if _key(rest) is not None:
                # `- key: value`: the item is a mapping whose keys sit at the column of `key`.
                column = indent + (len(line.text) - len(rest))
                line.indent, line.text = column, rest
                items.append(self.mapping(column))
            else:
                self.index += 1
                items.append(self.scalar(line, rest, indent))
        return items

    def mapping(self, indent):
        result = {}
        while (line := self.peek()) is not None and line.indent == indent:
            if line.text.startswith("-"):
                break
            split = _key(line.text)
            if split is None:
                raise self.error(line, f"expected `key: value`, found `{line.text}`")
            key, rest = split
            if key in result:
                raise self.error(line, f"`{key}` appears twice")
            self.index += 1
            if rest:
                result[key] = self.scalar(line, rest, indent)
            else:
                child = self.peek()
                nested = child is not None and (child.indent > indent or
                                                (child.indent == indent and child.text.startswith("- ")))
                result[key] = self.block(child.indent) if nested else None
        return result

    def scalar(self, line, text, indent):
        if text[0] in "&*!{":
            raise self.error(line, f"`{text}`: anchors, aliases, tags and flow mappings are not supported")
        if re.fullmatch(r"[|>][-+]?", text):
            return self.block_scalar(text[0], text[1:], indent)
        if text.startswith("["):
            if not text.endswith("]"):
                raise self.error(line, "a flow sequence must end on its line")
            inner = text[1:-1].strip()
            return [_unquote(item.strip()) for item in inner.split(",")] if inner else []
        return _unquote(text)

    def block_scalar(self, style, chomp, indent):
        body = []
        while self.index < len(self.lines):
            line = self.lines[self.index]
            if line.raw.strip() and line.indent <= indent:
                break
            body.append(line.raw)
            self.index += 1
        while body and not body[-1].strip():
            body.pop()
        content = [raw for raw in body if raw.strip()]
        if not content:
            return ""
        column = min(len(raw) - len(raw.lstrip(" ")) for raw in content)
        text_lines = [raw[column:] for raw in body]
        if style == "|":
            text = "\n".join(text_lines)
        else:
            text = " ".join(part for part in text_lines if part)
        return text if chomp == "-" else text + "\n"


def _key(text):
    match = re.match(r"([A-Za-z0-9_.-]+):(?: (.*)|$)", text)
    if match is None:
        return None
    return match.group(1), (match.group(2) or "").strip()


def _unquote(text):
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text
