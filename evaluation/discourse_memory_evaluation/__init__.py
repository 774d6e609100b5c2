"""Evaluation of discourse-memory against baseline memories (``bench``) and over a
replayed agent session (``replay``).

Modules, one job each:

- :mod:`.datasets`: LoCoMo JSON and chat-run JSONL -> :class:`~.datasets.Conversation`
- :mod:`.grader`: the grading literal extractor, independent of the compactor's
- :mod:`.metrics`: scores of a view against its history
- :mod:`.baselines`: the methods (this project, LangChain, LlamaIndex, head+tail, ...)
- :mod:`.bench`, :mod:`.replay`: the two runs; :mod:`.plot`: the PNG; :mod:`.cli`: commands

Nothing here is imported by ``import discourse_memory``.
"""

from .cli import add_bench_parser, add_replay_parser, main_bench, main_replay

__all__ = ["add_bench_parser", "add_replay_parser", "main_bench", "main_replay"]
