"""``Limits``: the bounds of the top-level modules' work, not weights (the weights, which
trade one kind of text against another, are the :class:`~discourse_memory.Policy`'s): how
deep and how much of an input is read, how large caches grow, how much a recall or a page
shows, and a few thresholds of when a rule applies. The fit's and the record's own are
in ``fit/limits.py`` and ``record/limits.py``; a provider's framing and media costs are
facts in ``framing.RULES`` and ``formats.media.COSTS``."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LIMITS", "Limits"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The top-level modules' bounds (see the module docstring). Keyword-only and frozen:
    a test that needs another bound patches a module's ``LIMITS`` with
    ``dataclasses.replace(LIMITS, ...)``."""

    # --- reading an input ---------------------------------------------------------------
    payload_depth: int = 100
    """Containers nested inside a message, at most (:mod:`.payload`). OpenAI chat messages nest
    about five deep; tool arguments given as objects add their own depth, rarely past twenty."""
    payload_values: int = 1_000_000
    """Values (containers and scalars) in one message, at most, when a payload is read as JSON
    only (:mod:`.payload`, a state file's messages)."""
    list_depth: int = 32
    """Deeper list items are items at this depth (:mod:`.blocks`)."""
    json_unit_chars: int = 400
    """A JSON value this long or shorter stays one unit (:mod:`.json_units`)."""
    json_document_chars: int = 200
    """Shorter JSON texts are not split at all (:mod:`.json_units`)."""
    json_depth: int = 64
    """JSON values nested deeper than this are not split further (:mod:`.json_units`)."""
    json_string_lines: int = 3
    """A long JSON string is split into lines when it holds at least this many line breaks."""
    shape_chars: int = 200
    """Texts up to this long are scanned for literals once per digit shape (1-9 read as 1;
    :func:`.literals.digit_shape`): a generated list costs a scan per shape, not per item."""
    prose_chars: int = 100_000
    """spaCy refuses texts over ``nlp.max_length``: prose paragraphs longer than this are split
    into lines before they reach the pipeline (:mod:`.nlp`, :mod:`.segment`)."""

    # --- telling a text's language (:mod:`.language`) -----------------------------------
    script_sample: int = 600
    """Characters read for a text's script."""
    vote_sample: int = 400
    """Characters read for the vote of Latin-script words."""
    short_words: int = 12
    """A text of at most this many words is short: one foreign word asks the language model of
    it ("Die Bestellung kam."); in longer English text a lone "os" or "da" is code or a name."""
    min_probability: float = 0.6
    """The language model's answer is taken only at this probability or more."""

    # --- the pipeline's work and caches --------------------------------------------------
    vocabulary: int = 200_000
    """Strings a spaCy pipeline's vocabulary holds before it is renewed (about 300 bytes each
    with its lexeme: ~60 MB at most per pipeline; :mod:`.nlp`)."""
    warm_up_wait: float = 60.0
    """Seconds a first analysis waits at most for a running warm-up (it takes 1-3 s; more on a
    busy machine; :mod:`.nlp`)."""
    suffix_window: int = 64
    """A word (a run between whitespace) longer than twice this has its suffixes looked for in
    its last this many characters (:func:`.nlp.tail_suffix_search`): spaCy searches the whole
    word for each suffix it strips, so a 12,000-character run of closing brackets took 13 s."""
    prime_per_doc: int = 64
    """Plain words per priming doc (:func:`.doc_tokens.prime_cache`)."""
    suspect_per_doc: int = 8
    """Words that may hold a special case ("don't", "e.g.") per priming doc: one stops the
    caching of the rest of its doc."""
    prime_min_texts: int = 64
    """Batches of fewer texts than this are not primed (a chat turn's few texts fill a doc or two)."""
    per_doc: int = 8
    """Short texts tokenized per shared doc (:mod:`.doc_tokens`): measured on the list items,
    fields and table rows of the 10,000-message history, 8 per doc tokenize 2.3x as fast as
    one per doc; 64 per doc, or docs of 4,000+ characters, are slower again."""
    doc_chars: int = 2_000
    """Characters of one shared doc, at most (:mod:`.doc_tokens`)."""
    small_pieces: int = 48
    """Texts of at most this many pieces in all are measured piece by piece in Python, not
    as arrays (:meth:`.units.Analyzer._measure_maps`): a turn's one message costs a sixth as
    much so; at about 60 pieces the two ways cost the same (one SWE message each way)."""
    small_doc_rows: int = 256
    """Docs of at most this many tokens in all are read row by row in Python, not as arrays
    (:mod:`.doc_tokens`): a chat turn's few dozen tokens cost a third as much so; at 256
    tokens the two ways cost the same (``_build`` of a sample doc, each way)."""
    bulk_texts: int = 1_000
    """A batch of this many new texts is analysed with the collector paused (:mod:`.gc_pause`)."""
    bulk_chars: int = 500_000
    """... or of this many characters of new text."""
    count_cache: int = 65_536
    """Texts whose token counts are cached per counter (:mod:`.tokens`)."""
    by_lines_min: int = 2_000
    """A text at least this long is counted line by line (:mod:`.tokens`; a shorter text costs
    less to count than to split)."""
    shared_entry_bytes: int = 1 << 20
    """An analysis larger than this (of a text of roughly 1 MB or more) is not shared through
    an analysis cache (:mod:`.analysis_cache`)."""
    shared_ttl: int = 7 * 24 * 3600
    """Seconds a shared analysis lives in Redis unless a ``RedisAnalysisCache`` is given another ``ttl``."""
    inflated_bytes: int = 64 * 1024 * 1024
    """A shared analysis whose body inflates past this many bytes is a zip bomb, not an
    analysis, and is not read (:mod:`.analysis_codec`)."""
    shared_segment: int = 4
    """Messages per shared entry of the fitting stage's rows (:mod:`.fit.shared_rows`) and of a
    conversation's columns (:mod:`.shared_columns`): a worker computes the rows and columns of
    fewer than this many messages past its conversation's last entry itself."""
    shared_group: int = 4
    """Segments of ``shared_segment`` messages per shared entry of a conversation's settled
    history (:func:`.cache_entry.segments`): the rows and columns of messages before the last
    multiple of ``shared_segment * shared_group`` are shared in entries of that many messages,
    those after it in entries of ``shared_segment``. Fewer entries for a fresh worker to open
    and check (each costs the same fixed work, whatever it holds), and still at most
    ``shared_segment - 1`` messages a worker makes itself past its conversation's entries."""
    shared_counts: int = 16_384
    """Token counts per shared entry of a view's rendered texts (:mod:`.shared_counts`), at most
    (16 bytes each before compression): a view that counted more shares none, and an entry
    that holds more is refused. A view of a 65,000-token history at a quarter of it counts ~300."""
    shared_count_views: int = 4
    """A worker's shared counts' entry holds the counts of its last this many views of the
    conversation (:mod:`.shared_counts`): a view one message on often shows a message as a view
    two or three turns back did, not as the last (a warm worker has those counts in its memo; a
    fresh one read only the last view's and BPE-encoded 14,700 characters of them again on the
    benchmark's history). An entry then holds ~400 counts, not ~280."""
    shared_rewrite_rows: int = 16
    """Rows more than its shared entry holds that views must have read in a segment of
    messages to write the entry again."""
    as_is_chars_per_token: int = 10
    """A history of more characters than this per token of the budget is not counted to see
    whether it fits as it is (a token of text holds 3-5 characters) before its first view: its
    columns count it (:mod:`.compaction`)."""

    # --- horizons (:mod:`.horizon`) ------------------------------------------------------
    horizon_budgets: int = 8
    """A budget under 1/this of the history's tokens gets a horizon ..."""
    horizon_min_tokens: int = 200_000
    """... and only a history of at least this many tokens."""
    chars_per_token: int = 4
    """Characters per token, to estimate a horizon's messages before they are counted."""
    horizon_target: float = 1.5
    """A window holds this many times the horizon when it is made ..."""
    horizon_grown: float = 2.5
    """... and is made again past this many times (a history of at most this many times the
    horizon has none): how often a window is remade against how much it reads."""

    # --- replies' topics (:mod:`.replies`) ------------------------------------------------
    topic_messages: int = 2
    """How many messages before a CJK question that names nothing ("how much is it?") are read
    for the one name it is about."""
    topic_chain: int = 3
    """How many questions and replies that name nothing before a question a topic carries through."""
    topic_passed: int = 2
    """How many messages naming only places of another kind a question's window reaches past."""

    # --- recall and pages -----------------------------------------------------------------
    page_min_tokens: int = 16
    """Below this many tokens of room for a page, a recall is cut to fit instead of paged
    (:mod:`.recall`)."""
    also_named: int = 5
    """A search by words in a message names at most this many other places it found them."""
    recall_messages: int = 20
    """A range recalls at most this many messages at once."""
    searched: int = 5
    """A query searching messages beyond a horizon returns at most this many, best first."""
    place_context_chars: int = 200
    """A place found in a long line starts this many characters before the words, at a space
    (:mod:`.pages`)."""

    # --- the inspection page (:mod:`.inspect`) ---------------------------------------------
    fold_chars: int = 20_000
    """A run of left-out units longer than this many characters is folded: its first and last
    ``fold_keep`` characters' worth of units are shown, the units between them as one line
    that counts them (a 5 MB log the view leaves out was a 16 MB page)."""
    fold_keep: int = 2_000
    """See ``fold_chars``."""
    pages_shown: int = 200
    """The page lists at most this many pages of the references a view hands out (each is a
    recall, about 5-15 ms for a page of 1,000 tokens); past it, ``<p id="pages-more">`` says
    the list stops there."""

    # --- the command line ---------------------------------------------------------------
    analysis_steps: int = 50
    """The analysis of a long input is done in this many steps, for the progress line (:mod:`.cli`)."""
    progress_delay: float = 1.0
    """Seconds of work before the progress line appears (a quick command prints none)."""
    progress_interval: float = 0.1
    """Seconds between two frames of the progress line."""
    progress_bar: int = 24
    """Characters of the progress bar."""


LIMITS = Limits()
"""The limits the top-level modules work within."""
