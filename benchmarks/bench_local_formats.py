"""Values in local formats and other languages: found as literals, and kept by compaction.

    python benchmarks/bench_local_formats.py [--data ../shared/data] [--budget-share 0.10]

Prints, with the installed code (``PYTHONPATH=<another checkout>`` measures that one:
sections 2 and 3 run on any version):

1. **Language detection** (``discourse_memory.language.detect_language``) on the
   hand-written sentences of ``tests/fixtures/language_sentences.json`` and on spaCy's
   own example sentences of the same languages (written elsewhere), per language; the
   share of the English/agent texts of the shared data read as English; the
   microseconds per text. ``py3langid`` and ``pycld2`` alone on the same sentences,
   when they are importable.
2. **CrossWOZ** (``multilingual/crosswoz_dev.jsonl``): the share of ``gold_values``
   that some unit of their chat states as a literal with exactly that text, and the
   share contained in one; by kind of value.
3. **Format probes** in German, French, Spanish, Russian, Japanese and Chinese: 32 early
   messages per language state prices, dates, times, phone numbers and order ids in
   local formats in sentences written here; long filler chatter follows, then a last
   question. Each conversation is compacted with ``discourse_memory.compact(msgs,
   budget=int(share * total), relax=True)``; reported: the share of stated values found
   verbatim in the view (messages and note), and of the missing ones, how many are not
   a literal of their unit at all (an extraction miss) and how many were literals the
   policy or the record dropped.
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

from discourse_memory import compact  # noqa: E402
from discourse_memory.nlp import get_pipeline  # noqa: E402
from discourse_memory.segment import segment_texts  # noqa: E402

try:
    from discourse_memory.language import detect_language
except ImportError:  # an older checkout (PYTHONPATH=<it>, for before/after numbers): no detection
    detect_language = None  # type: ignore[assignment]

SPACY_EXAMPLES = ("en", "de", "fr", "es", "it", "pt", "nl", "ru", "uk", "zh", "ja", "ko")


# --- 1. language detection ---------------------------------------------------------

def _detectors() -> dict[str, Any]:
    out: dict[str, Any] = {"discourse_memory": detect_language}
    try:
        from py3langid.langid import _load_identifier

        ident = _load_identifier(norm_probs=True, langs=list(SPACY_EXAMPLES))
        out["py3langid alone"] = lambda t: ident.classify(t)[0]
    except ImportError:
        pass
    try:
        import pycld2

        def cld2(t: str) -> str:
            code = pycld2.detect(t)[2][0][1]
            return {"un": "en", "zh-Hant": "zh"}.get(code, code)

        out["pycld2 alone"] = cld2
    except ImportError:
        pass
    return out


def _spacy_examples() -> dict[str, list[str]]:
    out = {}
    for lang in SPACY_EXAMPLES:
        try:
            out[lang] = list(importlib.import_module(f"spacy.lang.{lang}.examples").sentences)
        except ImportError:
            continue
    return out


def _english_texts(data: Path) -> list[str]:
    texts: list[str] = []
    locomo = data / "locomo" / "locomo_dev.json"
    if locomo.exists():
        for conv in json.loads(locomo.read_text()):
            for value in conv["conversation"].values():
                if isinstance(value, list):
                    texts.extend(t["text"] for t in value if isinstance(t, dict) and t.get("text"))
    for name in ("agents/swe_dev.jsonl", "agents/tau_airline_dev.jsonl"):
        path = data / name
        if path.exists():
            for line in path.open():
                for m in json.loads(line)["messages"]:
                    if isinstance(m.get("content"), str) and m["content"]:
                        texts.append(m["content"])
    return list(dict.fromkeys(texts))


def detection(data: Path) -> None:
    print("== 1. language detection ==")
    if detect_language is None:
        print("(this checkout has no discourse_memory.language)")
        return
    sets = {"hand-written": json.loads((ROOT / "tests" / "fixtures" / "language_sentences.json").read_text()),
            "spaCy examples": _spacy_examples()}
    for name, detect in _detectors().items():
        for set_name, sentences in sets.items():
            ok = total = 0
            per = []
            for lang, items in sentences.items():
                right = sum(detect(s) == lang for s in items)
                ok, total = ok + right, total + len(items)
                per.append(f"{lang} {right}/{len(items)}")
            print(f"{name:>18} on {set_name:<15} {ok}/{total} = {ok / max(total, 1):.1%}  ({', '.join(per)})")
    english = _english_texts(data)
    if english:
        detect_language("warm up")
        start = time.perf_counter()
        langs = [detect_language(t) for t in english]
        seconds = time.perf_counter() - start
        counts = Counter(langs)
        print(f"English/agent texts of the shared data read as English: {counts['en']}/{len(english)}"
              f" ({dict(counts)}); {seconds / len(english) * 1e6:.1f} us/text")
    else:
        print("(shared data not found: English texts skipped)")


# --- 2. CrossWOZ ----------------------------------------------------------------------

def _kind_of_value(value: str) -> str:
    if value[:1].isdigit() and ("-" in value[:5] and value.replace("-", "").isdigit() or len(value) >= 8
                                and value.isdigit()):
        return "phone"
    if any(c in value for c in "元"):
        return "price"
    if ":" in value or "小时" in value:
        return "time"
    if value.endswith("分") or value.endswith("分以上") or value.replace(".", "").isdigit():
        return "rating/number"
    return "name/other"


def crosswoz(data: Path) -> None:
    print("\n== 2. CrossWOZ gold values found as literals ==")
    path = data / "multilingual" / "crosswoz_dev.jsonl"
    if not path.exists():
        print(f"(not found: {path})")
        return
    rows = [json.loads(line) for line in path.open()]
    nlp = get_pipeline()
    exact = contained = total = 0
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for row in rows:
        texts = [m["content"] for m in row["messages"] if isinstance(m.get("content"), str)]
        literals = {lit.text for pieces in segment_texts(texts, nlp) for p in pieces for lit in p.literals}
        for value in row["gold_values"]:
            kind = _kind_of_value(value)
            is_exact = value in literals
            is_in = is_exact or any(value in lit for lit in literals)
            exact += is_exact
            contained += is_in
            total += 1
            k = by_kind[kind]
            k[0] += is_exact
            k[1] += is_in
            k[2] += 1
    print(f"exact: {exact}/{total} = {exact / total:.1%}; contained in a literal: {contained}/{total} = "
          f"{contained / total:.1%}")
    for kind, (e, c, n) in sorted(by_kind.items()):
        print(f"  {kind:<14} exact {e / n:6.1%}  contained {c / n:6.1%}  ({n} values)")


# --- 3. format probes -------------------------------------------------------------------

# Each template states one value ({v}); values are drawn per kind in local formats.
PROBES: dict[str, dict[str, Any]] = {
    "de": {
        "templates": {
            "price": ["Der Mantel kostet jetzt {v}, ich habe ihn gestern gesehen.",
                      "Für die Reparatur wollen sie {v} haben.", "Insgesamt bezahlen wir {v} für das Zimmer."],
            "date": ["Die Lieferung kommt am {v}, sagt der Händler.", "Unser Termin beim Notar ist am {v}."],
            "time": ["Der Zug fährt um {v} vom Hauptbahnhof ab.", "Wir treffen uns um {v} vor dem Kino."],
            "phone": ["Du erreichst die Werkstatt unter {v}.", "Ruf bitte die Praxis an: {v}."],
            "id": ["Meine Bestellnummer ist {v}, falls du nachfragen musst.", "Die Buchung läuft unter {v}."],
        },
        "values": {
            "price": ["49,90 €", "1.299,00 €", "12,50 €", "249 €", "3.450,75 €", "89,99 €", "17,30 €"],
            "date": ["3. Mai 2024", "14. Juni 2024", "1. Oktober 2024", "22.08.2024", "7. März 2025"],
            "time": ["14:30 Uhr", "9 Uhr", "18:45 Uhr", "7:15 Uhr", "20 Uhr"],
            "phone": ["+49 30 1234567", "030 7654321", "+49 89 2345678", "0221 998877"],
            "id": ["DE-48213", "BST-77102", "A7K9Q2", "RB-2024-118"],
        },
        "filler": ["Das Wetter ist heute wieder ziemlich grau und es regnet ständig.",
                   "Ich habe gestern einen langen Spaziergang im Park gemacht.",
                   "Meine Schwester hat angerufen und von ihrem neuen Job erzählt.",
                   "Wir sollten mal wieder zusammen kochen, das war immer schön.",
                   "Der Film war ganz nett, aber das Ende hat mich enttäuscht."],
        "question": "Kannst du mir bitte alles noch einmal zusammenfassen?",
    },
    "fr": {
        "templates": {
            "price": ["Le manteau coûte maintenant {v}, je l'ai vu hier.", "Pour la réparation, ils demandent {v}.",
                      "Au total nous payons {v} pour la chambre."],
            "date": ["La livraison arrive le {v}, d'après le vendeur.", "Notre rendez-vous chez le notaire est le {v}."],
            "time": ["Le train part à {v} de la gare centrale.", "On se retrouve à {v} devant le cinéma."],
            "phone": ["Tu peux joindre le garage au {v}.", "Appelle le cabinet, s'il te plaît : {v}."],
            "id": ["Mon numéro de commande est {v}, au cas où.", "La réservation est au nom de {v}."],
        },
        "values": {
            "price": ["49,90 €", "1 299,00 €", "12,50 €", "249 €", "3 450,75 €", "89,99 €", "17,30 €"],
            "date": ["3 mai 2024", "14 juin 2024", "1er octobre 2024", "22/08/2024", "7 mars 2025"],
            "time": ["14h30", "9h00", "18h45", "7h15", "20h00"],
            "phone": ["01 23 45 67 89", "06 12 34 56 78", "+33 1 42 68 53 00", "04 78 90 12 34"],
            "id": ["FR-48213", "CMD-77102", "A7K9Q2", "RES-2024-118"],
        },
        "filler": ["Il fait encore gris aujourd'hui et il pleut sans arrêt.",
                   "Hier j'ai fait une longue promenade dans le parc.",
                   "Ma sœur a appelé pour parler de son nouveau travail.",
                   "On devrait refaire un dîner ensemble, c'était toujours sympa.",
                   "Le film était pas mal, mais la fin m'a déçu."],
        "question": "Tu peux me refaire un résumé de tout, s'il te plaît ?",
    },
    "es": {
        "templates": {
            "price": ["El abrigo cuesta ahora {v}, lo vi ayer.", "Por la reparación piden {v}.",
                      "En total pagamos {v} por la habitación."],
            "date": ["La entrega llega el {v}, según la tienda.", "Nuestra cita con el notario es el {v}."],
            "time": ["El tren sale a las {v} de la estación central.", "Quedamos a las {v} delante del cine."],
            "phone": ["Puedes llamar al taller al {v}.", "Llama a la consulta, por favor: {v}."],
            "id": ["Mi número de pedido es {v}, por si acaso.", "La reserva está a nombre de {v}."],
        },
        "values": {
            "price": ["49,90 €", "1.299,00 €", "12,50 €", "249 €", "3.450,75 €", "89,99 €", "17,30 €"],
            "date": ["15 de marzo de 2024", "3 de mayo de 2024", "1 de octubre de 2024", "22/08/2024", "7 de julio"],
            "time": ["14:30", "9:00", "18:45", "7:15", "20:00"],
            "phone": ["+34 912 345 678", "912 345 678", "+34 600 123 456", "934 567 890"],
            "id": ["ES-48213", "PED-77102", "A7K9Q2", "RES-2024-118"],
        },
        "filler": ["Hoy vuelve a estar gris y no para de llover.",
                   "Ayer di un paseo largo por el parque.",
                   "Mi hermana llamó para contarme lo de su nuevo trabajo.",
                   "Deberíamos volver a cocinar juntos, siempre era divertido.",
                   "La película estuvo bien, pero el final me decepcionó."],
        "question": "¿Me puedes hacer un resumen de todo, por favor?",
    },
    "ru": {
        "templates": {
            "price": ["Пальто сейчас стоит {v}, я видел его вчера.", "За ремонт просят {v}.",
                      "Всего мы платим {v} за номер."],
            "date": ["Доставка будет {v}, так сказал магазин.", "Встреча у нотариуса назначена на {v}."],
            "time": ["Поезд уходит в {v} с центрального вокзала.", "Встречаемся в {v} у кинотеатра."],
            "phone": ["Мастерскую можно набрать по номеру {v}.", "Позвони, пожалуйста, в клинику: {v}."],
            "id": ["Номер моего заказа {v}, на всякий случай.", "Бронь оформлена под номером {v}."],
        },
        "values": {
            "price": ["12 500 ₽", "990 руб.", "1 299 ₽", "49 900 ₽", "350 рублей", "7 800 ₽", "2 450 ₽"],
            "date": ["3 мая 2024 г.", "14 июня 2024 г.", "1 октября 2024", "22.08.2024", "7 марта"],
            "time": ["14:30", "9:00", "18:45", "7:15", "20:00"],
            "phone": ["+7 495 123-45-67", "+7 812 765-43-21", "8 (495) 234-56-78", "+7 916 555-12-34"],
            "id": ["RU-48213", "ZK-77102", "A7K9Q2", "BR-2024-118"],
        },
        "filler": ["Сегодня опять пасмурно и весь день идёт дождь.",
                   "Вчера я долго гулял в парке.",
                   "Сестра позвонила и рассказала про новую работу.",
                   "Надо бы снова приготовить ужин вместе, это всегда было весело.",
                   "Фильм был неплохой, но концовка разочаровала."],
        "question": "Можешь ещё раз всё кратко напомнить?",
    },
    "ja": {
        "templates": {
            "price": ["そのコートは今{v}で売っていました。", "修理代は{v}だそうです。", "部屋代は合計で{v}になります。"],
            "date": ["お届けは{v}の予定だとお店が言っていました。", "公証人との約束は{v}です。"],
            "time": ["電車は{v}に中央駅を出ます。", "映画館の前で{v}に会いましょう。"],
            "phone": ["修理工場の電話番号は{v}です。", "クリニックに電話してください：{v}。"],
            "id": ["念のため、注文番号は{v}です。", "予約番号は{v}になっています。"],
        },
        "values": {
            "price": ["12,800円", "4,980円", "￥299", "1万2千円", "3,450円", "980円", "25,000円"],
            "date": ["2024年5月3日", "2024年6月14日", "10月1日", "8月22日", "2025年3月7日"],
            "time": ["午後3時", "午前9時30分", "18時45分", "7時15分", "20:00"],
            "phone": ["03-1234-5678", "06-6543-2109", "090-1234-5678", "+81 3 1234 5678"],
            "id": ["JP-48213", "A7K9Q2", "ORD77102", "RSV-2024-118"],
        },
        "filler": ["今日もまた曇っていて、一日中雨が降っています。",
                   "昨日は公園を長い時間散歩しました。",
                   "姉から電話があって、新しい仕事の話を聞きました。",
                   "また一緒に料理をしたいですね、いつも楽しかったです。",
                   "映画はまあまあでしたが、最後が少し残念でした。"],
        "question": "もう一度、全部まとめて教えてもらえますか？",
    },
    "zh": {
        "templates": {
            "price": ["那件大衣现在卖{v}，我昨天看到的。", "修理要{v}。", "房间一共是{v}。"],
            "date": ["商家说{v}送到。", "我们和公证员约在{v}。"],
            "time": ["火车{v}从北京站出发。", "我们{v}在电影院门口见。"],
            "phone": ["修理厂的电话是{v}。", "请给诊所打电话：{v}。"],
            "id": ["我的订单号是{v}，以防万一。", "预订号是{v}。"],
        },
        "values": {
            "price": ["￥299.00", "775元", "400-500元", "1299元", "12万元", "89.5元", "3450元"],
            "date": ["2024年5月3日", "6月14日", "10月1号", "2024年8月22日", "3月7日"],
            "time": ["下午3点", "上午9点半", "18:45", "晚上7点", "10:00-21:00"],
            "phone": ["010-84580888", "021-62345678", "+86 10 8458 0888", "0755-83456789"],
            "id": ["A12345", "CN48213", "DD-77102", "RES2024118"],
        },
        "filler": ["今天又是阴天，下了一整天的雨。",
                   "我昨天在公园里散了很久的步。",
                   "我姐姐打电话来说了她新工作的事。",
                   "我们应该再一起做饭，每次都很开心。",
                   "电影还行，不过结局有点让人失望。"],
        "question": "你能再帮我把所有事情总结一下吗？",
    },
}


FILLER_WORDS: dict[str, dict[str, Any]] = {
    "de": {"frame": "{} {} {}.", "a": ["Mein Nachbar", "Die Katze", "Unser Chef", "Meine Tante", "Der Bäcker",
                                         "Das Kind", "Ein Kollege", "Die Lehrerin"],
           "b": ["erzählt gern", "denkt oft", "redet viel", "träumt manchmal", "liest abends", "schreibt selten",
                 "spricht leise", "lacht laut"],
           "c": ["über den Garten", "vom Urlaub am Meer", "über alte Filme", "von seinem Hund", "über das Essen",
                 "vom letzten Winter", "über neue Bücher", "von der Schule"]},
    "fr": {"frame": "{} {} {}.", "a": ["Mon voisin", "Le chat", "Notre chef", "Ma tante", "Le boulanger",
                                         "L'enfant", "Un collègue", "La maîtresse"],
           "b": ["parle souvent", "rêve parfois", "raconte volontiers", "pense beaucoup", "lit le soir",
                 "écrit rarement", "discute longtemps", "rit fort"],
           "c": ["du jardin", "des vacances à la mer", "des vieux films", "de son chien", "de la cuisine",
                 "de l'hiver dernier", "des nouveaux livres", "de l'école"]},
    "es": {"frame": "{} {} {}.", "a": ["Mi vecino", "El gato", "Nuestro jefe", "Mi tía", "El panadero",
                                         "El niño", "Un compañero", "La maestra"],
           "b": ["habla a menudo", "sueña a veces", "cuenta siempre", "piensa mucho", "lee por la noche",
                 "escribe poco", "discute mucho", "se ríe"],
           "c": ["del jardín", "de las vacaciones en la playa", "de las películas viejas", "de su perro",
                 "de la comida", "del invierno pasado", "de los libros nuevos", "del colegio"]},
    "ru": {"frame": "{} {} {}.", "a": ["Мой сосед", "Кошка", "Наш начальник", "Моя тётя", "Пекарь", "Ребёнок",
                                         "Коллега", "Учительница"],
           "b": ["часто говорит", "иногда мечтает", "охотно рассказывает", "много думает", "вечером читает",
                 "редко пишет", "долго спорит", "громко смеётся"],
           "c": ["о саде", "об отпуске на море", "о старых фильмах", "о своей собаке", "о еде",
                 "о прошлой зиме", "о новых книгах", "о школе"]},
    "ja": {"frame": "{}は{}{}。", "a": ["隣の人", "猫", "上司", "叔母", "パン屋さん", "子ども", "同僚", "先生"],
           "b": ["庭のことを", "海の旅行のことを", "古い映画のことを", "犬のことを", "料理のことを",
                 "去年の冬のことを", "新しい本のことを", "学校のことを"],
           "c": ["よく話します", "時々考えます", "楽しそうに話します", "夜に書きます", "ずっと話しています",
                 "あまり話しません", "笑いながら話します", "静かに話します"]},
    "zh": {"frame": "{}{}{}。", "a": ["我的邻居", "那只猫", "我们老板", "我姑姑", "面包师傅", "那个孩子", "一位同事",
                                       "那位老师"],
           "b": ["经常聊起", "有时想起", "总是说起", "晚上写到", "一直在讲", "很少提到", "笑着说起", "小声说起"],
           "c": ["花园里的事", "去海边度假", "以前的老电影", "他家的狗", "做饭的事", "去年冬天", "新出的书",
                 "学校的事"]},
}


def probe_conversation(lang: str, seed: int, early: int = 32, filler: int = 260) -> tuple[list[dict[str, str]],
                                                                                           list[str]]:
    """A conversation stating ``early`` values in ``lang``'s formats, then filler chatter."""
    spec = PROBES[lang]
    rng = random.Random(f"{lang}-{seed}")
    kinds = list(spec["templates"])
    msgs: list[dict[str, str]] = [{"role": "system", "content": "You are a helpful assistant."}]
    values: list[str] = []
    for i in range(early):
        kind = kinds[i % len(kinds)]
        value = rng.choice(spec["values"][kind])
        text = rng.choice(spec["templates"][kind]).format(v=value)
        msgs.append({"role": "user" if i % 2 == 0 else "assistant", "content": text})
        values.append(value)
    words = FILLER_WORDS[lang]
    for i in range(filler):
        # Filler sentences built from parts, so that they do not repeat (a repeat is shown
        # only where it last occurs, which would leave the early messages room).
        text = " ".join(rng.choice(spec["filler"]) if k == 0 else words["frame"].format(
            *(rng.choice(words[slot]) for slot in ("a", "b", "c"))) for k in range(3))
        msgs.append({"role": "user" if i % 2 == 0 else "assistant", "content": text})
    msgs.append({"role": "user", "content": spec["question"]})
    return msgs, values


def probes(budget_share: float, seeds: int) -> None:
    print(f"\n== 3. format probes: values stated early, compacted to {budget_share:.0%} (relax=True) ==")
    nlp = get_pipeline()
    for lang in PROBES:
        kept = total = extraction_miss = 0
        missed: Counter[str] = Counter()
        for seed in range(seeds):
            msgs, values = probe_conversation(lang, seed)
            full = compact(msgs, budget=10**9)
            budget = int(budget_share * full.tokens_before)
            view = compact(msgs, budget=budget, relax=True)
            shown = "\n".join(m["content"] for m in view.messages if isinstance(m.get("content"), str))
            pieces = segment_texts([m["content"] for m in msgs[1:33]], nlp)
            for value, pcs in zip(values, pieces):
                total += 1
                if value in shown:
                    kept += 1
                    continue
                missed[value] += 1
                if not any(lit.text == value for p in pcs for lit in p.literals):
                    extraction_miss += 1
        print(f"{lang}: {kept}/{total} = {kept / total:.1%} in the view; of {total - kept} missing, "
              f"{extraction_miss} not a literal of their unit (extraction), {total - kept - extraction_miss} "
              f"literals left out by the policy or record; most missed: {missed.most_common(4)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--budget-share", type=float, default=0.10)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()
    detection(args.data)
    crosswoz(args.data)
    probes(args.budget_share, args.seeds)


if __name__ == "__main__":
    main()
