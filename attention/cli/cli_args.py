"""argparse in the catalogue's words: --help and argparse's own error lines in the terminal's language.

argparse writes English in two ways: the help (headings, "usage: ", the -h line, each option's
help) and the error lines it builds itself ("main.py trace: error: argument --indent: invalid int
value: 'x'").  `localize` puts the catalogue's words on a parser's help; `Parser.error` rewrites
the error line: argparse hands it over already filled in, so `translate` reads it back against
argparse's own templates (`MESSAGES`, Python's wording) and writes it with the catalogue's
(attention/words/cli_args.py).  A message argparse words differently (another Python) stays as
argparse wrote it, never half-translated.  Qt-free and torch-free (the headless CLI imports it).
"""
from __future__ import annotations

import argparse
import re
import sys
from typing import Optional

import attention.words as words

#: argparse's own error templates (Python 3.11-3.13 argparse.py) and the catalogue key of each;
#: the catalogue's placeholders are argparse's %(names)s, a bare %s or %r is {args}
MESSAGES: dict[str, str] = {
    "argument %(argument_name)s: %(message)s": "cli.arg.argument",
    "invalid %(type)s value: %(value)r": "cli.arg.invalid_value",
    "invalid choice: %(value)r (choose from %(choices)s)": "cli.arg.invalid_choice",
    "the following arguments are required: %s": "cli.arg.required",
    "unrecognized arguments: %s": "cli.arg.unrecognized",
    "expected one argument": "cli.arg.expected_one",
    "expected at most one argument": "cli.arg.expected_at_most_one",
    "expected at least one argument": "cli.arg.expected_at_least_one",
    "expected %s argument": "cli.arg.expected_n",
    "expected %s arguments": "cli.arg.expected_n",
    "ambiguous option: %(option)s could match %(matches)s": "cli.arg.ambiguous",
    "not allowed with argument %s": "cli.arg.not_allowed_with",
    "ignored explicit argument %r": "cli.arg.ignored_explicit",
    "one of the arguments %s is required": "cli.arg.one_of_required",
    "unknown parser %(parser_name)r (choices: %(choices)s)": "cli.arg.unknown_parser",
}
_PLACEHOLDER = re.compile(r"%(?:\((\w+)\))?[sr]")


def _pattern(template: str) -> re.Pattern:
    """argparse's template as a regular expression with one named group per placeholder."""
    out, last = [], 0
    for m in _PLACEHOLDER.finditer(template):
        out.append(re.escape(template[last:m.start()]))
        out.append(f"(?P<{m.group(1) or 'args'}>.+?)")
        last = m.end()
    out.append(re.escape(template[last:]))
    return re.compile("^" + "".join(out) + "$", re.DOTALL)


_PATTERNS = [(_pattern(t), key) for t, key in MESSAGES.items()]


def translate(message: str, lang: str) -> str:
    """An error message argparse built, in `lang` (unchanged when it is no template we know)."""
    if words.normalize(lang) == "en":
        return message
    for pattern, key in _PATTERNS:
        m = pattern.match(message)
        if m is None:
            continue
        args = m.groupdict()
        if "message" in args:  # "argument X: <another of argparse's messages>"
            args["message"] = translate(args["message"], lang)
        if "type" in args and words.has(f"cli.arg.type.{args['type']}"):
            args["type"] = words.text(f"cli.arg.type.{args['type']}", lang)
        return words.text(key, lang, **args)
    return message


class Formatter(argparse.HelpFormatter):
    """argparse's own formatter with the catalogue's "usage: " and section headings ("选项：", not
    argparse's "选项:"), both set per language by `localize`."""

    usage_prefix = "usage: "
    lang = "en"

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._headings: list[str] = []

    def add_usage(self, usage, actions, groups, prefix=None):  # noqa: D102 (argparse override)
        super().add_usage(usage, actions, groups, self.usage_prefix if prefix is None else prefix)

    def start_section(self, heading):  # noqa: D102 (argparse override)
        if heading:
            self._headings.append(heading)
        super().start_section(heading)

    def format_help(self) -> str:
        """argparse's help with each section heading's line ("%s:" in argparse's _Section) written
        as the catalogue's cli.heading: a Chinese heading ends in a full-width colon."""
        text = super().format_help()
        for heading in dict.fromkeys(self._headings):
            line = re.compile(rf"^( *){re.escape(heading)}:$", re.MULTILINE)
            written = words.text("cli.heading", self.lang, heading=heading)
            text = line.sub(lambda m, written=written: m.group(1) + written, text)
        return text


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose error line speaks `lang` (set by `localize`; subcommands inherit the class)."""

    lang = "en"

    def error(self, message: str):  # noqa: D102 (argparse override)
        self.print_usage(sys.stderr)
        self.exit(2, words.text("cli.arg.error", self.lang, prog=self.prog, message=translate(message, self.lang))
                  + "\n")


def count(text: str) -> int:
    """argparse type of a count of at least 1 (--threads N): anything else is argparse's "invalid count value"."""
    n = int(text)  # ValueError: argparse's invalid-value error, in the parser's language
    if n < 1:
        raise ValueError(text)
    return n


def localize(parser: argparse.ArgumentParser, lang: str, command: Optional[str] = None) -> None:
    """Put the catalogue's words on `parser` and its subcommands: argparse's own headings and
    "-h" line, each command's summary and description, each option's help (keys cli.cmd.<command>
    [.about] and cli.opt.<command>.<dest>; a positional's help where the catalogue has one)."""
    formatter = type("Formatter", (Formatter,), {"usage_prefix": words.text("cli.usage", lang),
                                                 "lang": words.normalize(lang)})
    parser.formatter_class = formatter
    parser.lang = words.normalize(lang)
    parser.description = words.text(f"cli.cmd.{command}.about" if command else "cli.about", lang)
    parser.epilog = None if command else words.text("cli.epilog", lang)
    parser._positionals.title = words.text("cli.positionals", lang)
    parser._optionals.title = words.text("cli.options", lang)
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            action.help = words.text("cli.help_option", lang)
        elif isinstance(action, argparse._SubParsersAction):
            for shown in action._choices_actions:  # the command list in the top-level help
                shown.help = words.text(f"cli.cmd.{shown.dest}", lang)
            for name, child in action.choices.items():
                localize(child, lang, name)
        elif command and (action.option_strings or words.has(f"cli.opt.{command}.{action.dest}")):
            action.help = words.text(f"cli.opt.{command}.{action.dest}", lang)
