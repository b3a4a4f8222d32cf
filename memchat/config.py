"""One Settings object: defaults < config file < environment (MEMCHAT_*) < flags.

Every setting is declared once in SETTINGS (name, default, help). That table drives
validation, `memchat config`, `memchat config init` and config.example.toml, so they
cannot drift apart. Dotted names are TOML sections: `history.strategy` is `strategy`
under `[history]` and MEMCHAT_HISTORY_STRATEGY in the environment.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memchat.capabilities import declared, read_capabilities
from memchat.errors import ConfigError, UsageError
from memchat.files import MAX_CONFIG_BYTES, read_regular
from memchat.prices import price, read_prices
from memchat.providers import is_local_url, names

if TYPE_CHECKING:
    from memchat.capabilities import Capabilities


@dataclass(frozen=True)
class Setting:
    name: str
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    minimum: int | None = None
    maximum: float | None = None

    @property
    def env_var(self) -> str:
        return "MEMCHAT_" + self.name.upper().replace(".", "_")


SETTINGS: tuple[Setting, ...] = (
    Setting(
        "provider",
        "anthropic",
        "Model provider for chat: anthropic (Claude), openai (any OpenAI-compatible Chat Completions server: "
        "Ollama, llama.cpp, vLLM, LM Studio, OpenAI) or echo (offline, deterministic; for tests and trying the CLI "
        "without a key).",
        choices=("anthropic", "openai", "echo"),
    ),
    Setting("model", "claude-sonnet-5-5", "Model name sent to the provider."),
    Setting(
        "base_url",
        "",
        "Messages API base URL for gateways and compatible servers. Empty: ANTHROPIC_BASE_URL, else https://api.anthropic.com.",
    ),
    Setting("max_tokens", 4096, "Most tokens the model may write in one reply.", minimum=1, maximum=1_000_000),
    Setting(
        "system",
        "You are a helpful assistant in a terminal. Be accurate and concise; use Markdown when it helps.",
        "Base system prompt.",
    ),
    Setting("timeout", 120, "Seconds to wait for the API before giving up on a request.", minimum=1),
    Setting(
        "max_retries",
        3,
        "Retries, with backoff, on 429, 5xx, 529 and dropped connections before a call fails.",
        minimum=0,
    ),
    Setting("context_window", 200000, "Tokens the model accepts in one call (prompt plus reply).", minimum=256),
    Setting("profile", "default", "Profile name: each profile is its own database."),
    Setting("db", "", "Database path. Empty: <data dir>/<profile>.db."),
    Setting("markdown", True, "Render replies as Markdown when stdout is a terminal."),
    Setting(
        "openai.base_url",
        "",
        "Chat Completions base URL of the openai provider, e.g. http://localhost:11434/v1 for Ollama. "
        "Empty: OPENAI_BASE_URL, else https://api.openai.com/v1. A local address needs no key and costs nothing.",
    ),
    Setting(
        "history.strategy",
        "compact",
        "How older turns leave the context: compact (summarise the oldest turns), tokens (send the newest turns that fit) or window (the last window_turns turns).",
        choices=("compact", "tokens", "window"),
    ),
    Setting("history.window_turns", 20, "Turns (a message and its reply) sent by the window strategy.", minimum=1),
    Setting(
        "history.compact_at", 75, "Compact when history passes this percentage of its budget.", minimum=10, maximum=100
    ),
    Setting("history.summary_tokens", 400, "Most tokens in a session summary.", minimum=50),
    Setting(
        "history.retention_days",
        0,
        "Keep conversation transcripts this many days, then delete them for good (scrubbed like forget; "
        "memories learnt from them stay). 0: forever. Applied in the background and by `memchat purge`.",
        minimum=0,
    ),
    Setting(
        "memory.embedding_model",
        "all-MiniLM-L6-v2",
        "Sentence-transformers model for recall: the bundled all-MiniLM-L6-v2, a local model path, or a model name (downloads only with HF_HUB_OFFLINE=0). After a change, run `memchat reindex`.",
    ),
    Setting(
        "memory.capture",
        True,
        "Extract memories (facts, events, rules) from conversations in the background. /capture off turns it off for a chat.",
    ),
    Setting(
        "memory.event_retention_days",
        0,
        "Forget events (problems, plans, session summaries) this many days after they were recorded. 0: never.",
        minimum=0,
    ),
    Setting(
        "memory.pending_days",
        90,
        "Forget guesses you never confirmed (pending memories) after this many days. 0: never.",
        minimum=0,
    ),
    Setting("memory.capture_every", 3, "Capture after this many turns (and always when a session ends).", minimum=1),
    Setting(
        "memory.model",
        "claude-haiku-4-5",
        "Model for memory work: capture (facts, events, rules and the session summary, one call per capture) "
        "and compaction summaries. A small, cheap model does it well. Empty: the chat model. Left at its default, "
        "it applies to anthropic only: memory on another provider uses the chat model unless this is set.",
    ),
    Setting(
        "memory.provider",
        "",
        "Provider for memory work (capture, its decisions and summaries, compaction): anthropic, openai or echo. "
        "Empty: the chat provider. Chat on Claude and memory on a local model, or the other way round.",
    ),
    Setting("memory.budget", 1500, "Most tokens of the memory section in each call's system prompt.", minimum=0),
    Setting(
        "memory.relevance",
        0.05,
        "The relevance bar, 0 to 1: a fact, event or past message goes into a call unasked "
        "only when its relevance to the message clears this. Pinned memories and rules always go. Lower brings back "
        "more; higher, less. Sensitive memories need a higher bar and a message about them.",
        minimum=0,
        maximum=1,
    ),
    Setting(
        "memory.recall_tool",
        True,
        "Let the chat model search memory itself (a `recall` tool, at most 2 searches a reply, each shown "
        "as a note and by /why) when its memory notes lack something. Never private memories.",
    ),
    Setting(
        "memory.embedding_precision",
        "auto",
        "Arithmetic of the embedding model: auto (bfloat16 where the CPU has it natively, about 1.8x faster, cosine agreement 0.9999 with float32), fp32 or bf16.",
        choices=("auto", "fp32", "bf16"),
    ),
    Setting(
        "memory.encoder",
        "auto",
        "How the embedding model runs: auto (onnxruntime, exported once from sentence-transformers and verified to agree to a cosine of 0.999; else sentence-transformers), onnx (insist) or torch (always sentence-transformers).",
        choices=("auto", "onnx", "torch"),
    ),
    Setting(
        "recall.weak",
        0.05,
        "`memchat recall`, /recall and MCP recall always show their best matches, by rank; a match whose "
        "relevance (0 to 1) is below this is labelled weak. Only a label: --min-score filters. Independent of "
        "memory.relevance, which decides what goes into a call unasked.",
        minimum=0,
        maximum=1,
    ),
)

_BY_NAME = {s.name: s for s in SETTINGS}
PROFILE_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


ANTHROPIC_URL = "https://api.anthropic.com"
OPENAI_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class Role:
    """Which provider and model do one kind of work, and the server they are on."""

    name: str  # chat | memory
    provider: str
    model: str  # "" when none is named (memory on another provider than the chat, memory.model unset)
    url: str  # the provider's base URL; "" for one without a server (echo)

    @property
    def local(self) -> bool:
        """A server of one's own (this machine, a private network): no key needed, nothing billed."""
        return self.provider == "openai" and is_local_url(self.url)


@dataclass
class Settings:
    values: dict[str, Any]
    sources: dict[str, str]
    config_path: Path
    prices: dict[str, tuple[float, float]] = field(default_factory=dict)  # [prices] of the file: model -> in, out
    models: dict[str, Capabilities] = field(default_factory=dict)  # [models] of the file: what each model can do

    def __post_init__(self) -> None:
        self._declared_window()
        # A model on a server of one's own costs nothing unless [prices] says otherwise.
        for role in self.roles():
            if role.local and role.model:
                if price(role.model, self.prices) is None:
                    self.prices = {**self.prices, role.model: (0.0, 0.0)}

    def _declared_window(self) -> None:
        """The chat model's context_window as [models] declares it: over the default and the file,
        under the environment and a flag (the more explicit choices)."""
        source = self.sources["context_window"]
        if source.startswith("[models"):  # carried over from before the model changed: undo
            self.values["context_window"], self.sources["context_window"] = (
                _BY_NAME["context_window"].default,
                "default",
            )
            source = "default"
        window = declared(self.models, self.values["model"]).context_window if self.models else None
        if window and _rank(source) <= _rank("file"):
            self.values = {**self.values, "context_window": window}
            self.sources = {
                **self.sources,
                "context_window": f"[models.{self.values['model']!r}] in {self.config_path}",
            }

    def roles(self) -> list[Role]:
        """Who does what: the chat, and memory work (capture, its decisions and summaries, compaction)."""
        chat_provider = self.values["provider"]
        # The offline echo provider is no model, whatever `model` names: it is recorded as "echo".
        chat_model = "echo" if chat_provider == "echo" else self.values["model"]
        chat = Role("chat", chat_provider, chat_model, self._url(chat_provider))
        provider = self.values["memory.provider"] or chat.provider
        model = self.values["memory.model"]
        if provider == "echo":
            model = "echo"
        elif self.sources["memory.model"] == "default" and provider != "anthropic":
            # Claude's small model is no name for another server: the chat model, if it is on the same one.
            model = chat.model if provider == chat.provider else ""
        return [chat, Role("memory", provider, model, self._url(provider))]

    def role(self, name: str) -> Role:
        """One role's provider and model; ConfigError when memory is on another provider with no model named."""
        found = next(r for r in self.roles() if r.name == name)
        if not found.model:
            raise ConfigError(
                f"memory.provider is {found.provider} but memory.model names no model of it: set memory.model "
                "(`memchat models` lists what the server offers)"
            )
        return found

    def _url(self, provider: str) -> str:
        """The base URL a provider of this name would use ('' when it has none: echo, a test's fake)."""
        if provider == "openai":
            return (self.values["openai.base_url"] or "").strip() or OPENAI_URL
        if provider == "anthropic":
            return (self.values["base_url"] or "").strip() or ANTHROPIC_URL
        return ""

    def __getattr__(self, name: str) -> Any:
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(name) from None

    def get(self, name: str) -> Any:
        return self.values[name]

    def with_overrides(self, **flags: Any) -> Settings:
        """A copy with flag values applied (None means 'not given')."""
        values, sources = dict(self.values), dict(self.sources)
        for name, value in flags.items():
            if value is None:
                continue
            try:
                values[name] = _coerce(_BY_NAME[name], value, f"flag --{name.replace('_', '-')}")
            except ConfigError as exc:  # a bad value typed on the command line is bad usage (exit 2)
                raise UsageError(exc.message) from None
            sources[name] = "flag"
        return Settings(values, sources, self.config_path, self.prices, self.models)

    def flags_as_environment(self) -> dict[str, str]:
        """The settings given as flags, as the MEMCHAT_* variables a detached worker reads them
        from (`memchat --provider openai ask ...` captures with openai too); the database goes
        to the worker as --db."""
        return {
            setting.env_var: ("true" if value else "false") if isinstance(value, bool) else str(value)
            for setting in SETTINGS
            if self.sources.get(setting.name) == "flag"
            and setting.name not in ("db", "profile")
            and (value := self.values.get(setting.name)) is not None
        }

    @property
    def db_path(self) -> Path:
        """The profile's database: `db` when set, unless `profile` was given more explicitly (a
        --profile flag beats a `db` in the config file; both as flags is a usage error)."""
        if not self.values["db"] and _rank(self.sources["db"]) >= _rank("env"):
            # a script's unset "$DB" must not write to the main profile (an empty MEMCHAT_DB is a
            # setting, exit 1 as any bad one; an empty --db a usage error)
            error = UsageError if self.sources["db"] == "flag" else ConfigError
            raise error("the database path is empty (--db or MEMCHAT_DB): give a file, or leave it out")
        if self.values["db"]:
            db_rank, profile_rank = _rank(self.sources["db"]), _rank(self.sources["profile"])
            if db_rank == profile_rank == _rank("flag"):
                raise UsageError("use either --db or --profile, not both")
            if db_rank >= profile_rank:
                return Path(self.values["db"]).expanduser()
        return data_dir() / f"{self.values['profile']}.db"

    @property
    def profile_key(self) -> str:
        """A name for this profile's own files beside the database (its input history)."""
        path = self.db_path
        if path == data_dir() / f"{self.values['profile']}.db":
            return str(self.values["profile"])

        return "db-" + hashlib.sha256(str(path.resolve()).encode("utf-8", "surrogateescape")).hexdigest()[:12]


def _rank(source: str) -> int:
    """How explicit a setting's source is: default < file < environment < flag."""
    return {"default": 0, "file": 1, "env": 2, "flag": 3}.get(source.split(" ")[0], 1)  # [models...]: as the file


def _home_override() -> Path | None:
    home = os.environ.get("MEMCHAT_HOME")
    return Path(home).expanduser() if home else None


def _xdg(var: str, fallback: str) -> Path:
    override = _home_override()
    if override:
        return override
    base = os.environ.get(var) or str(Path.home() / fallback)
    return Path(base) / "memchat"


def config_dir() -> Path:
    return _xdg("XDG_CONFIG_HOME", ".config")


def data_dir() -> Path:
    return _xdg("XDG_DATA_HOME", ".local/share")


def state_dir() -> Path:
    return _xdg("XDG_STATE_HOME", ".local/state")


def cache_dir() -> Path:
    # Derived, rebuildable files only (the ONNX export); MEMCHAT_CACHE_DIR lets several homes share one.
    if os.environ.get("MEMCHAT_CACHE_DIR"):
        return Path(os.environ["MEMCHAT_CACHE_DIR"]).expanduser()
    return _xdg("XDG_CACHE_HOME", ".cache")


def default_config_path() -> Path:
    return (
        Path(os.environ["MEMCHAT_CONFIG"]).expanduser()
        if os.environ.get("MEMCHAT_CONFIG")
        else config_dir() / "config.toml"
    )


_NAMES_A_MODEL = ("model", "memory.model")


def _coerce(setting: Setting, value: Any, origin: str) -> Any:
    """A setting's value from the config file, the environment or a flag, checked: its type, its
    range, its choices (a ConfigError that names the setting and where the value came from)."""
    want = type(setting.default)
    coerce = {bool: _to_bool, float: _to_float, int: _to_int}.get(want, _to_text)
    result: Any = coerce(setting, value, f"setting '{setting.name}' ({origin})")
    allowed = setting.choices
    if setting.name in ("provider", "memory.provider"):
        # The built-in providers, and any registered (a test's fake).
        allowed = names() if setting.name == "provider" or result else None
    if allowed and result not in allowed:
        raise ConfigError(f"setting '{setting.name}' ({origin}) must be one of {', '.join(allowed)}; got {result!r}")
    if setting.name == "profile" and not PROFILE_RE.match(result):
        raise ConfigError(f"profile name {result!r} ({origin}) may use only letters, digits, '-', '_' and '.'")
    return result


def _to_bool(setting: Setting, value: Any, what: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "on"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{what} must be true or false, got {value!r}")


def _to_float(setting: Setting, value: Any, what: str) -> float:
    try:
        if isinstance(value, bool):
            raise ValueError
        result = float(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{what} must be a number, got {value!r}") from None
    low = setting.minimum if setting.minimum is not None else -math.inf
    high = setting.maximum if setting.maximum is not None else math.inf
    if not low <= result <= high:  # also refuses nan
        raise ConfigError(f"{what} must be between {low:g} and {high:g}, got {value!r}")
    return result


def _to_int(setting: Setting, value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise ConfigError(f"{what} must be a whole number, got {value!r}")
    if isinstance(value, float) and not value.is_integer():  # 1.5 days is not 1 day
        raise ConfigError(f"{what} must be a whole number, got {value!r}")
    try:
        result = int(value)
    except (TypeError, ValueError, OverflowError):
        raise ConfigError(f"{what} must be a whole number, got {value!r}") from None
    if setting.minimum is not None and result < setting.minimum:
        raise ConfigError(f"{what} must be at least {setting.minimum}, got {result}")
    if setting.maximum is not None and result > setting.maximum:
        raise ConfigError(f"{what} must be at most {int(setting.maximum):,}, got {result}")
    return result


def _to_text(setting: Setting, value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ConfigError(f"{what} must be a string, got {value!r}")
    if "\x00" in value:
        raise ConfigError(f"{what} cannot contain a NUL character")
    if setting.name in _NAMES_A_MODEL and not value.strip():
        raise ConfigError(f"{what} needs a model name, got an empty one")
    return value


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name not in _BY_NAME:
            flat.update(_flatten(value, name + "."))
        else:
            flat[name] = value
    return flat


def read_config_file(path: Path, *, named: bool = False) -> dict[str, Any]:
    """Parse the TOML file. The default file may be missing (an empty config); a file the user
    named (--config, MEMCHAT_CONFIG) must exist."""
    if not named and not path.exists():
        return {}
    try:
        raw = read_regular(path, "a config file", MAX_CONFIG_BYTES)
    except UsageError as exc:
        raise ConfigError(f"config file: {exc.message}") from None
    try:
        text = raw.decode("utf-8")
        return tomllib.loads(text)
    except UnicodeDecodeError:
        raise ConfigError(f"config file {path} is not valid UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        # tomllib puts "(at line N, column M)" in the message: keep it, it is what the user needs.
        raise ConfigError(f"invalid TOML in {path}: {exc}") from None
    except RecursionError:
        raise ConfigError(f"invalid TOML in {path}: nested too deeply") from None


def load_settings(config_path: str | Path | None = None, env: dict[str, str] | None = None) -> Settings:
    """Resolve every setting from defaults, the config file and the environment."""
    environ: Mapping[str, str] = os.environ if env is None else env
    path = Path(config_path).expanduser() if config_path else default_config_path()
    values = {s.name: s.default for s in SETTINGS}
    sources = {s.name: "default" for s in SETTINGS}
    named = bool(config_path) or bool(environ.get("MEMCHAT_CONFIG"))
    table = read_config_file(path, named=named)
    prices = {}
    if "prices" in table:
        prices = read_prices(table.pop("prices"), path)
    models = {}
    if "models" in table:
        models = read_capabilities(table.pop("models"), path)
    for name, value in _flatten(table).items():
        setting = _BY_NAME.get(name)
        if setting is None:
            raise ConfigError(f"unknown setting '{name}' in {path} (see `memchat config` for the list)")
        values[name] = _coerce(setting, value, f"in {path}")
        sources[name] = f"file {path}"
    for setting in SETTINGS:
        if setting.env_var in environ:
            values[setting.name] = _coerce(setting, environ[setting.env_var], f"from {setting.env_var}")
            sources[setting.name] = f"env {setting.env_var}"
    if sources["base_url"] == "default" and environ.get("ANTHROPIC_BASE_URL"):
        # The SDK's own variable: shown as what is in effect, and checked before a call (providers).
        values["base_url"] = _coerce(_BY_NAME["base_url"], environ["ANTHROPIC_BASE_URL"], "from ANTHROPIC_BASE_URL")
        sources["base_url"] = "env ANTHROPIC_BASE_URL"
    if sources["openai.base_url"] == "default" and environ.get("OPENAI_BASE_URL"):
        # The openai SDK's own variable, likewise.
        values["openai.base_url"] = _coerce(
            _BY_NAME["openai.base_url"], environ["OPENAI_BASE_URL"], "from OPENAI_BASE_URL"
        )
        sources["openai.base_url"] = "env OPENAI_BASE_URL"
    return Settings(values, sources, path, prices, models)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def example_config() -> str:
    """The commented config file: every setting, its default and what it does."""
    lines = [
        "# memchat configuration. Every setting is shown commented out with its default.",
        "# Location: $XDG_CONFIG_HOME/memchat/config.toml (override with --config or MEMCHAT_CONFIG).",
        "# Precedence, lowest first: defaults < this file < MEMCHAT_* environment < command-line flags.",
        "# API keys are never read from or written to this file: set ANTHROPIC_API_KEY (or OPENAI_API_KEY), or `memchat key set`.",
    ]
    section = None
    for s in SETTINGS:
        head, _, key = s.name.rpartition(".")
        if head != section and head:
            lines += ["", f"[{head}]"]
            section = head
        lines += [
            "",
            f"# {s.help}" + (f" Choices: {', '.join(s.choices)}." if s.choices else ""),
            f"# Environment: {s.env_var}",
            f"# {key} = {_toml_value(s.default)}",
        ]
    return "\n".join(lines) + "\n"


__all__ = ["Settings", "Setting", "SETTINGS", "load_settings", "example_config"]
