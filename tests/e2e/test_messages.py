"""Every key, flag, command and variable that a message of tokenmill names exists.

The messages are the string literals inside Status constructors (Status::X(...)), log calls
(LogError/LogWarning/LogInfo) and fprintf(stderr, ...) in src/ (tests excluded). In them:
  * "[table] key" must be a key of that table in docs/job-file.md;
  * "set KEY = ..." / "set KEY to ..." must name a job-file key (or a documented variable);
  * "--flag" must be an option of the tokenmill CLI (from `tokenmill CMD --help`), unless the
    message is about a command line of another program (listed in FOREIGN_FLAGS with why);
  * "tokenmill CMD" must be a subcommand;
  * TOKENMILL_* variables must be documented in docs/ or README.md.
"""

import glob
import os
import re
import subprocess
import unittest

import tmtest

SRC = os.path.join(tmtest.SOURCE_DIR, "src")
DOCS = os.path.join(tmtest.SOURCE_DIR, "docs")
TABLES = ("input", "tokenizer", "examples", "output", "job")

# Flags of other programs that tokenmill messages quote on purpose.
FOREIGN_FLAGS = {
    "--parsable",  # `sbatch --parsable`, which tokenmill runs
    "--key-file",  # `gcloud auth activate-service-account --key-file`
}

CALL = re.compile(r"\b(?:Status::[A-Za-z]+|Log(?:Error|Warning|Info|Debug)|fprintf\s*\(\s*stderr\s*,)"
                  r"\s*\(?")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def message_literals(text):
    """Yields (line, message) for each call that makes a message: its literals concatenated."""
    for m in CALL.finditer(text):
        depth = 1 if text[m.end() - 1] == "(" or m.group(0).startswith("fprintf") else 0
        i = m.end()
        if depth == 0:
            continue
        start = i
        in_str = False
        while i < len(text) and depth > 0:
            c = text[i]
            if in_str:
                if c == "\\":
                    i += 1
                elif c == '"':
                    in_str = False
            elif c == '"':
                in_str = True
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
            i += 1
        body = text[start:i]
        msg = "".join(s.encode().decode("unicode_escape", "ignore") if "\\" in s else s
                      for s in LITERAL.findall(body))
        if msg:
            yield text.count("\n", 0, m.start()) + 1, msg


def job_file_keys():
    keys = {t: set() for t in TABLES}
    table = None
    with open(os.path.join(DOCS, "job-file.md")) as f:
        for line in f:
            h = re.match(r"## `\[(\w+)\]`", line)
            if h:
                table = h.group(1)
                continue
            if line.startswith("## "):
                table = None
            row = re.match(r"\| `(\w+)` \|", line)
            if table in keys and row:
                keys[table].add(row.group(1))
    # Keys of the canonical JSON only (set by tokenmill, documented there).
    keys["input"].add("invalid_utf8")
    keys["examples"].add("eod_first")
    return keys


def cli_commands_and_flags():
    commands, flags = set(), set()
    top = tmtest.run(["--help"]).stdout

    def subcommands(help_text):
        out, section = [], False
        for line in help_text.splitlines():
            if line.strip().upper().startswith("SUBCOMMANDS"):
                section = True
                continue
            if section:
                m = re.match(r"\s+([a-z0-9-]+)\s", line)
                if m:
                    out.append(m.group(1))
                elif line.strip() and not line.startswith(" "):
                    section = False
        return out

    todo = [[c] for c in subcommands(top)]
    flags.update(re.findall(r"(--[a-z][a-z0-9-]*)", top))
    while todo:
        path = todo.pop()
        commands.add(" ".join(path))
        text = tmtest.run(path + ["--help"], check=False).stdout
        flags.update(re.findall(r"(--[a-z][a-z0-9-]*)", text))
        todo.extend(path + [c] for c in subcommands(text))
    return commands, flags


def documented_variables():
    text = ""
    for path in glob.glob(os.path.join(DOCS, "**", "*.md"), recursive=True) + [
            os.path.join(tmtest.SOURCE_DIR, "README.md")]:
        with open(path) as f:
            text += f.read()
    return set(re.findall(r"\b(TOKENMILL_[A-Z0-9_]+)", text))


class MessagesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.keys = job_file_keys()
        cls.all_keys = set().union(*cls.keys.values())
        cls.commands, cls.flags = cli_commands_and_flags()
        cls.variables = documented_variables()
        cls.messages = []
        for path in sorted(glob.glob(os.path.join(SRC, "**", "*.cc"), recursive=True)):
            if path.endswith("_test.cc") or "/test_" in path:
                continue
            with open(path) as f:
                text = f.read()
            for line, msg in message_literals(text):
                cls.messages.append(("%s:%d" % (os.path.relpath(path, SRC), line), msg))

    def test_reference_was_read(self):
        # The scanners found what they scan: a broken parser must not pass silently.
        self.assertIn("on_bad_record", self.keys["input"])
        self.assertIn("lease_seconds", self.keys["job"])
        self.assertIn("work", self.commands)
        self.assertIn("--workers", self.flags)
        self.assertGreater(len(self.messages), 300)

    def test_table_keys_exist(self):
        bad = []
        for where, msg in self.messages:
            for table, key in re.findall(r"\[(\w+)\] (\w+)", msg):
                if table not in TABLES:
                    continue
                if key not in self.keys[table] and key not in ("table",):
                    bad.append("%s: [%s] %s in %r" % (where, table, key, msg))
            for table in re.findall(r"\[(\w+)\]", msg):
                if table.islower() and table.isalpha() and table not in TABLES and (
                        "table" in msg or "[" + table + "] " in msg):
                    bad.append("%s: table [%s] in %r" % (where, table, msg))
        self.assertEqual(bad, [])

    def test_set_names_a_key(self):
        bad = []
        for where, msg in self.messages:
            for name in re.findall(r"\bset (?:\[\w+\] )?([A-Za-z_][A-Za-z0-9_]*) (?:=|to\b)", msg):
                if name in self.all_keys or name in self.variables:
                    continue
                if name.isupper() or name == "it":  # a variable, or a file's own field
                    continue
                bad.append("%s: set %s in %r" % (where, name, msg))
        self.assertEqual(bad, [])

    def test_flags_exist(self):
        bad = []
        for where, msg in self.messages:
            for flag in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", msg):
                if flag not in self.flags and flag not in FOREIGN_FLAGS:
                    bad.append("%s: %s in %r" % (where, flag, msg))
        self.assertEqual(bad, [])

    def test_commands_exist(self):
        bad = []
        for where, msg in self.messages:
            for cmd in re.findall(r"`tokenmill ([a-z]+(?: [a-z0-9]+)?)", msg):
                first = cmd.split()[0]
                if cmd not in self.commands and first not in self.commands:
                    bad.append("%s: tokenmill %s in %r" % (where, cmd, msg))
        self.assertEqual(bad, [])

    def test_variables_are_documented(self):
        bad = []
        for where, msg in self.messages:
            for var in re.findall(r"\b(TOKENMILL_[A-Z0-9_]+)", msg):
                if var not in self.variables:
                    bad.append("%s: %s in %r" % (where, var, msg))
        self.assertEqual(bad, [])

    def test_jsonl_messages_name_on_bad_record(self):
        # The JSONL and JSON-array readers share the record parser, which holds the messages.
        for name in ("jsonl_reader.cc", "json_record.cc", "json_array_reader.cc"):
            with open(os.path.join(SRC, "tokenmill", "io", name)) as f:
                text = f.read()
            self.assertNotIn("skip_bad_records =", text)
        with open(os.path.join(SRC, "tokenmill", "io", "json_record.cc")) as f:
            self.assertIn('[input] on_bad_record = \\"skip\\"', f.read())


if __name__ == "__main__":
    unittest.main()
