"""Evaluation of discourse-memory against baseline memories (``bench``), over a
replayed agent session (``replay``), and of one saved bench run against another,
half by half (``compare``).

Modules, one job each:

- :mod:`.datasets`: LoCoMo JSON and chat-run JSONL -> :class:`~.datasets.Conversation`
- :mod:`.grader`: the grading literal extractor, independent of the compactor's
- :mod:`.metrics`: scores of a view against its history
- :mod:`.baselines`: the methods (this project, LangChain, LlamaIndex, head+tail, ...)
- :mod:`.bench`, :mod:`.replay`: the two runs; :mod:`.compare`: two saved bench runs;
  :mod:`.plot`: the PNG; :mod:`.cli`: commands

Nothing here is imported by ``import discourse_memory``.
"""

from .cli import add_bench_parser, add_compare_parser, add_replay_parser, main_bench, main_compare, main_replay

__all__ = ["add_bench_parser", "add_compare_parser", "add_replay_parser", "main_bench", "main_compare", "main_replay"]
