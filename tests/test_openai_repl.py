"""The real REPL in a pseudo-terminal, talking to a local model through the openai provider."""

from conftest import db_rows
from test_repl import PROMPT, quit_, spawn


def test_the_repl_streams_a_local_models_reply_at_no_cost(local_api, memchat_home):
    local_api.enqueue_text("Hello from **llama**, streamed.", chunks=["Hello from ", "**llama**", ", streamed."])
    child = spawn()
    child.sendline("hi there")
    child.expect("Hello from")
    child.expect(r"\d+ in · 4 out · \$0\.0000")  # the fake counts words; a local model costs nothing
    local_api.enqueue_error(429, "Rate limit reached", headers={"x-should-retry": "false"})
    child.expect_exact(PROMPT)
    child.sendline("again")
    child.expect_exact("rate limited by the API (429)")  # the one line the Anthropic provider would say
    assert quit_(child) == 0
    first = local_api.requests[0]
    assert first["model"] == "llama3.1:8b" and first["messages"][-1] == {"role": "user", "content": "hi there"}
    assert db_rows(memchat_home)[:2] == [
        ("user", "hi there", "ok"),
        ("assistant", "Hello from **llama**, streamed.", "ok"),
    ]
