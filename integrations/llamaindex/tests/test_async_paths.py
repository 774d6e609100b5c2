"""Every async method compacts in a worker thread, never on the event loop's, with the sync
result: the buffer's ``aget``, the block's ``_aget`` / ``atruncate``, the recall tool. Checked by
the thread the tokenizer is called in, not by timing (``benchmarks/bench_loop_stall.py`` measures
stalls). The counter's tables load when the memory is made, not in a first ``aget``."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from typing import Any

import pytest

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.utils import get_tokenizer
from llama_index.memory.discourse import DiscourseMemoryBlock, DiscourseMemoryBuffer, recall_tool

ENCODE = get_tokenizer()  # LlamaIndex's default (offline: its bundled cl100k_base)


class Recorder:
    """A LlamaIndex ``tokenizer_fn`` that records the threads it is called in."""

    def __init__(self) -> None:
        self.threads: set[int] = set()

    def __call__(self, text: str) -> list[int]:
        self.threads.add(threading.get_ident())
        return ENCODE(text)


def turn(t: int) -> str:
    return (f"Order ORD-{4100 + t} for cust_{t:05d}: 3 lines, total ${40 + t}.50, shipped 2024-06-{1 + t:02d} "
            "from Leipzig. Please tell me where it is and when it arrives, it has taken very long.")


def on_loop(make: Any) -> tuple[Any, int]:
    async def main() -> tuple[Any, int]:
        return await make(), threading.get_ident()

    return asyncio.run(main())


def buffer(tokenizer: Recorder, **kwargs: Any) -> DiscourseMemoryBuffer:
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=300, tokenizer_fn=tokenizer, **kwargs)
    for t in range(8):
        memory.put(ChatMessage(role="user", content=turn(t)))
        memory.put(ChatMessage(role="assistant", content=f"ORD-{4100 + t} is in transit."))
    return memory


def test_buffer_aget_runs_in_a_worker_thread_and_equals_get() -> None:
    tokenizer = Recorder()
    memory = buffer(tokenizer)
    tokenizer.threads.clear()
    view, loop_thread = on_loop(lambda: memory.aget(input="Where is ORD-4101?"))
    assert tokenizer.threads and loop_thread not in tokenizer.threads
    assert len(view) < len(memory.get_all())
    assert [m.content for m in view] == [m.content for m in memory.get(input="Where is ORD-4101?")]


def test_block_aget_and_atruncate_run_in_a_worker_thread() -> None:
    tokenizer = Recorder()
    block = DiscourseMemoryBlock(token_limit=300, tokenizer_fn=tokenizer)
    asyncio.run(block.aput([ChatMessage(role="user", content=turn(t)) for t in range(8)]))
    tokenizer.threads.clear()
    content, loop_thread = on_loop(lambda: block.aget())
    assert content and tokenizer.threads and loop_thread not in tokenizer.threads
    assert content == block.render_within(300)

    tokenizer.threads.clear()
    shorter, loop_thread = on_loop(lambda: block.atruncate(content, 100))
    assert shorter and len(shorter) < len(content)
    assert tokenizer.threads and loop_thread not in tokenizer.threads


def test_recall_tool_runs_in_a_worker_thread() -> None:
    tokenizer = Recorder()
    memory = buffer(tokenizer, recall=True)
    memory.get()
    tokenizer.threads.clear()

    class Store:
        async def get(self, key: str, default: Any = None) -> Any:
            return default

    ctx = type("Ctx", (), {"store": Store()})()
    out, loop_thread = on_loop(lambda: recall_tool(memory).acall(ctx=ctx, reference="#0"))
    assert "ORD-4100" in out.content
    assert tokenizer.threads and loop_thread not in tokenizer.threads


@pytest.mark.parametrize("kind", ["buffer", "block"])
def test_the_counter_loads_when_the_memory_is_made(kind: str) -> None:
    """tiktoken holds the interpreter lock while it builds an encoding (0.1-0.3 s): made in a
    first ``aget`` it would stall the loop, so the buffer and the block build their counter when
    they are made; the first ``aget`` then loads no encoding (checked in a fresh process)."""
    code = """
import asyncio, sys
from discourse_memory import tokens
from llama_index.core.base.llms.types import ChatMessage
from llama_index.memory.discourse import DiscourseMemoryBlock, DiscourseMemoryBuffer
assert not tokens._COUNTERS
if sys.argv[1] == 'buffer':
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=200)
else:
    memory = DiscourseMemoryBlock(token_limit=200)
assert tokens._COUNTERS, 'no counter was built with the memory'
def refuse(name):
    raise AssertionError(f'encoding {name} loaded in a first aget')
tokens._load_encoding = refuse
message = ChatMessage(role='user', content='Order ORD-1 shipped. ' * 80)
if sys.argv[1] == 'buffer':
    memory.put(message)
else:
    asyncio.run(memory.aput([message]))
assert asyncio.run(memory.aget())
print('ok')
"""
    run = subprocess.run([sys.executable, "-c", code, kind], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
