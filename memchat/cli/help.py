"""`--help` that reads like a man page: values in plain words (N, TEXT, ID, never `<list[str]>`),
ranges in words, and two or three examples under every command.

The examples live here, in one table keyed by the command's path, so a newcomer finds them in
one place and a test can check that every command has some. memchat's command classes
(`command.py`) call the functions below from the Click methods that lay out a help page.
"""

from __future__ import annotations

from typing import Any, get_args, get_origin

EXAMPLES: dict[str, list[tuple[str, str]]] = {
    "": [
        ("memchat", "Chat (Ctrl-D or /quit leaves; /help lists the commands)."),
        ("memchat -c", "Resume the latest conversation."),
        ('memchat ask "what did we decide about the trip?"', "One question, answered with what memchat remembers."),
        ('memchat recall "passport"', "Search memories and past conversations."),
    ],
    "chat": [
        ("memchat chat", "A new conversation."),
        ("memchat chat -s 12", "Resume session 12."),
        ("memchat chat --no-memory", "A conversation that memory neither reads nor keeps."),
    ],
    "ask": [
        ('memchat ask "summarise RFC 9110 in five lines"', "Print the reply and store the exchange."),
        ("git diff | memchat ask review this", "Piped input is the prompt (words given come first)."),
        ('memchat ask --json "what is my dentist\'s name?"', "One JSON object: reply, tokens, cost, memories sent."),
        ('memchat ask -a error.log -a shot.png "why does it fail?"', "Send files with the prompt (text or images)."),
    ],
    "log": [
        ("memchat log", "The last three exchanges, whatever their session, the newest last."),
        ('memchat log -n 10 --since today -q "webhook"', "Today's last ten that mention webhook."),
        ("memchat log -n 0 --json", "Every exchange, as one JSON array (model, tokens, cost)."),
    ],
    "key": [
        ("memchat key set", "Keep your Anthropic key in the OS keyring (typed hidden)."),
        ("memchat key show", "Each provider's key, masked, and where it comes from."),
    ],
    "key set": [
        ("memchat key set", "Type the Anthropic key (not shown); it goes to the OS keyring."),
        ("pass show openai | memchat key set openai", "From stdin, for a script or a password manager."),
    ],
    "key show": [
        ("memchat key show", "sk-ant-…c3d4 from ANTHROPIC_API_KEY, or from the OS keyring."),
        ("memchat key show openai", "One provider; exit code 1 when it has no key."),
    ],
    "key remove": [
        ("memchat key remove", "Delete the Anthropic key from the OS keyring."),
        ("memchat key remove openai", "The OpenAI one."),
    ],
    "recall": [
        ('memchat recall "where do I live"', "Best hits first; weak matches are labelled."),
        ("memchat recall dentist -k fact -n 3", "Only facts, three at most."),
        ('memchat recall "my car" --min-score 0.3 --json', "Only strong matches, for a script."),
        ('memchat recall "flight" --since 2026-11-01 --json', "From November on, as JSON."),
    ],
    "memories": [
        ("memchat memories list", "What memchat remembers, newest first."),
        ('memchat memories add "I prefer metric units"', "Remember something yourself."),
        ("memchat memories forget 14", "Forget memory 14, everywhere it was stored."),
    ],
    "memories list": [
        ("memchat memories list", "Active memories."),
        ("memchat memories list --status pending", "Guesses waiting for your review."),
        ("memchat memories list -k rule --json", "Rules, as one JSON array ([] when none)."),
    ],
    "memories show": [
        ("memchat memories show 14", "Its text, kind, origin, sources and history."),
        ("memchat memories show 14 --json", "The same as one JSON object."),
    ],
    "memories add": [
        ('memchat memories add "My dentist is Dr. Okafor"', "A fact (the kind is guessed)."),
        ('memchat memories add "Always answer in British English" -k rule', "A rule for how to work with you."),
        ('memchat memories add "I live in Lisbon" --key user.city --value Lisbon', "Replaces the old user.city."),
        ('memchat memories add "We moved to York last month" --replaces 3', "Memory 3 becomes its history."),
    ],
    "memories edit": [
        ("memchat memories edit 14", "Edit memory 14 in $EDITOR."),
        ('memchat memories edit 14 -t "My dentist is Dr. Ade"', "Replace its text directly."),
        ("memchat memories edit 15 --replaces 3", "Memory 15 replaces memory 3, kept as its history."),
    ],
    "memories pin": [("memchat memories pin 14", "Send memory 14 with every call.")],
    "memories unpin": [("memchat memories unpin 14", "Send it only when relevant again.")],
    "memories forget": [
        ("memchat memories forget 14", "Forget one memory (asks first)."),
        ('memchat memories forget -q "my old address" --dry-run', "List what a query would forget."),
        ("memchat memories forget --all --purge-sources", "Everything, with the messages it came from."),
    ],
    "memories history": [("memchat memories history 14", "Every version of memory 14, and who changed it.")],
    "memories export": [
        ("memchat memories export -o memories.md", "Markdown (the format follows the extension)."),
        ("memchat memories export -f json -o -", "One JSON document on stdout."),
    ],
    "memories import": [("memchat memories import memories.json", "Memories exported by memchat (its JSON).")],
    "memories capture": [
        ("memchat memories capture", "Extract memories from conversations not yet read."),
        ("memchat memories capture -s 12 --final", "Session 12, with its summary."),
    ],
    "memories review": [
        ("memchat memories review", "Go through pending guesses one by one."),
        ("memchat memories review --confirm 7 --reject 9", "Decide without asking."),
    ],
    "sessions": [
        ("memchat sessions list", "Recent conversations."),
        ("memchat sessions show 12 --around 340", "Message 340 (as recall cites it) in its context."),
        ("memchat sessions delete 12", "Delete a conversation and what was learnt only from it."),
    ],
    "sessions list": [
        ("memchat sessions list", "The 20 most recent conversations."),
        ("memchat sessions list -n 0 --json", "All of them, as one JSON array."),
        ("memchat sessions list -n 0 --jsonl", "The same, one JSON object per line."),
    ],
    "sessions show": [
        ("memchat sessions show 12", "The whole conversation, with message ids."),
        ("memchat sessions show 12 --around 340 -C 2", "Message 340 with two messages either side."),
    ],
    "sessions rename": [('memchat sessions rename 12 "Trip to Porto"', "A new title.")],
    "sessions delete": [
        ("memchat sessions delete 12", "Asks first; --yes does not."),
        ("memchat sessions delete 3 5 7-9 --yes", "Several at once: ids and ranges."),
        ("memchat sessions delete --empty", "Every session with no reply (failed asks leave them)."),
    ],
    "sessions export": [
        ("memchat sessions export 12 -o trip.md", "Markdown (the format follows the extension)."),
        ("memchat sessions export 12 -o trip.json", "memchat's JSON, which `memchat import` reads back."),
    ],
    "sessions pin": [("memchat sessions pin 12 340", "Keep message 340 in the context of session 12.")],
    "sessions unpin": [("memchat sessions unpin 12 340", "Let it be compacted again.")],
    "import": [
        ("memchat import conversations.json", "A ChatGPT or Claude export, a memchat export, or JSON lines."),
        ("memchat import ~/.config/io.datasette.llm/logs.db", "llm's log (read, never written)."),
    ],
    "reindex": [
        ("memchat reindex", "Embed and index what is new or changed."),
        ("memchat reindex --full", "Rebuild everything (after changing the embedding model)."),
    ],
    "context": [
        ("memchat context", "What the next call of the latest session would send, part by part."),
        ("memchat context -s 12 --json", "For session 12, as JSON."),
    ],
    "usage": [
        ("memchat usage", "Tokens and cost by day, model and purpose."),
        ("memchat usage --since 7d --json", "The last week, as one JSON array."),
    ],
    "models": [
        ("memchat models", "What the server offers, and which model chat and memory use."),
        ("OPENAI_BASE_URL=http://localhost:11434/v1 memchat --provider openai models", "What Ollama has pulled."),
    ],
    "config": [
        ("memchat config", "Every setting in effect and where it came from."),
        ("memchat config init", "Write a commented config file to edit."),
    ],
    "config init": [("memchat config init", "Write the example config (never overwrites).")],
    "config path": [("memchat config path", "Where the config file is read from.")],
    "mcp": [
        ("claude mcp add memchat -- memchat mcp", "Give Claude Code your memory (it starts the server)."),
        ("memchat --profile work mcp", "Serve the work profile's memory."),
    ],
    "consent": [
        ("memchat consent", "Whether memchat learns memories from your chats."),
        ("memchat consent no", "Stop learning (conversations are still saved)."),
    ],
    "purge": [
        ("memchat purge --older-than 90d --dry-run", "What is older than 90 days, without deleting it."),
        ("memchat purge --older-than 1y --superseded", "Transcripts, events and old values past a year."),
        ("memchat purge --yes", "Apply the config's retention windows now."),
    ],
    "audit": [
        ("memchat audit", "Every memory write, forget, export, import and purge, with its origin."),
        ("memchat audit --since 7d --json", "The last week, as one JSON array."),
        ("memchat audit -n 0 --jsonl", "Everything, one JSON object per line."),
    ],
    "profile": [
        ("memchat profile status", "Where the database is, and whether it is encrypted."),
        ("memchat profile encrypt", "Encrypt it; the key goes to the OS keyring (or MEMCHAT_DB_KEY)."),
    ],
    "profile status": [("memchat --profile work profile status", "The work profile's state.")],
    "profile encrypt": [
        ("memchat profile encrypt", "A random key, kept in the OS keyring."),
        ("MEMCHAT_DB_KEY=... memchat profile encrypt --yes", "Your passphrase (scripts, CI, no keyring)."),
    ],
    "profile decrypt": [("memchat profile decrypt", "Plain SQLite again (asks first).")],
    "profile compact": [("memchat profile compact", "Rewrite the file without its unused space (after a big forget).")],
    "doctor": [
        ("memchat doctor", "Check the key, the server, the database and the encoder."),
        ("memchat doctor --quick", "Skip the checks that load the encoder or call the server."),
    ],
}

_PLAIN_TYPES = {str: "TEXT", int: "N", float: "NUMBER", bool: "BOOL"}


def examples_for(command_path: str) -> list[tuple[str, str]]:
    """The examples of `memchat a b` (command_path "memchat a b")."""
    return EXAMPLES.get(command_path.partition(" ")[2], [])


def write_examples(command_path: str, formatter: Any) -> None:
    """The command's examples, under its help (Click's HelpFormatter `formatter`)."""
    examples = examples_for(command_path)
    if examples:
        formatter.write_paragraph()
        formatter.write_text("Examples:")
        with formatter.indentation():
            for command, what in examples:
                formatter.write_text(command)
                with formatter.indentation(), formatter.indentation():
                    formatter.write_text(what)


def plain_metavar(param: Any, annotation: Any) -> str:
    """An option's value in plain words: its name for text (`--model MODEL`), N for a number."""
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation) or (str,)
    if annotation is str and param.name:
        return str(param.name).upper()
    return _PLAIN_TYPES.get(annotation, "VALUE")


def usage_name(argument: Any) -> str:
    """An argument in the usage line: QUERY..., [ID] (typer would write {QUERY}...)."""
    name = str(argument.metavar or argument.name)
    if not argument.required and not name.startswith("["):
        name = f"[{name}]"
    return name + ("..." if argument.nargs != 1 else "")


def record(param: Any, ctx: Any) -> tuple[str, str] | None:
    """A parameter's line on the help page: its name and value, then its help."""
    typers = param.get_help_record(ctx)
    if typers is None:
        return None
    if param.param_type_name == "argument":
        name = str(param.metavar or param.name)
        return name + ("..." if param.metavar is None and param.nargs != 1 else ""), typers[1]
    bounds = _describe_number_range(getattr(param, "min", None), getattr(param, "max", None))
    if bounds is None:
        return typers
    extra = [f"default: {param.default}"] if param.default is not None and param.show_default else []
    extra.append(bounds)
    if param.required:
        extra.append("required")
    text = param.help or ""
    return typers[0], f"{text}  [{'; '.join(extra)}]" if text else f"[{'; '.join(extra)}]"


def _describe_number_range(min: float | None, max: float | None) -> str | None:  # typer's names
    if min is None and max is None:
        return None
    if min is None:
        return f"at most {max}"
    if max is None:
        return f"at least {min}"
    return f"{min} to {max}"
