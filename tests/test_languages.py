"""Other languages than English: detection, segmentation, names and literals in local
formats, against hand-written expectations."""

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory import compact
from discourse_memory.language import detect_language, normalise_language
from discourse_memory.literals import find_cjk_names, find_literals
from discourse_memory.nlp import get_pipeline
from discourse_memory.segment import segment_texts

from .conftest import view_tokens

SENTENCES = json.loads((Path(__file__).parent / "fixtures" / "language_sentences.json").read_text())


@pytest.mark.parametrize("lang", sorted(SENTENCES))
def test_hand_written_sentences_are_detected_in_their_language(lang):
    wrong = [s for s in SENTENCES[lang] if detect_language(s) != lang]
    assert not wrong, wrong


@pytest.mark.parametrize("text", [
    "def foo(x):\n    return os.path.join(x, 'im')",
    '{"SFO": "San Francisco", "LAX": "Los Angeles", "DEN": "Denver"}',
    "Traceback (most recent call last):\n  File \"a.py\", line 1",
    "We flew to Los Angeles and then Las Vegas with the kids.",
    "",
])
def test_code_and_english_with_foreign_names_stay_english(text):
    assert detect_language(text) == "en"


def test_a_callers_language_code_is_read():
    assert normalise_language("de-DE") == "de" and normalise_language("zh_CN") == "zh"
    assert normalise_language("tlh") == "xx"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Der Preis ist 49,90 € am 3. Mai 2024.", [("49,90 €", "amount"), ("3. Mai 2024", "date")]),
        ("Gesamt 1 299,00 € für zwei", [("1 299,00 €", "amount")]),
        ("Итого 12 500 ₽ за 3 мая 2024 г. и всё", [("12 500 ₽", "amount"), ("3 мая 2024 г.", "date")]),
        ("合計は12,800円です", [("12,800円", "amount")]),
        ("总价￥299.00，预算400-500元，这家775元。", [("￥299.00", "amount"), ("400-500元", "amount"), ("775元", "amount")]),
        ("El 15 de marzo de 2024 a las 14h30", [("15 de marzo de 2024", "date"), ("14h30", "time")]),
        ("Rendez-vous le 1er mars 2024 à 14h30", [("1er mars 2024", "date"), ("14h30", "time")]),
        ("2024年5月3日に", [("2024年5月3日", "date")]),
        ("Termin am 12/05/2024 um 14 Uhr", [("12/05/2024", "date"), ("14 Uhr", "time")]),
        ("午後3時に会いましょう", [("午後3時", "time")]),
        ("营业时间10:00-21:00", [("10:00-21:00", "time")]),
        ("电话010-84580888", [("010-84580888", "phone")]),
        ("Ruf an: +49 30 1234567", [("+49 30 1234567", "phone")]),
        ("Call (555) 123-4567 now", [("(555) 123-4567", "phone")]),
        ("订单号是A12345", [("A12345", "identifier")]),
        ("评分4.5分以上，玩3天，1小时", [("4.5分以上", "quantity"), ("3天", "quantity"), ("1小时", "quantity")]),
        ("时长0.3小时 - 0.5小时", [("0.3小时 - 0.5小时", "quantity")]),
        ("他说「明天见」然后走了", [("「明天见」", "quoted")]),
        # not local formats: an exponent's sign is no phone, a bare decimal comma is two numbers in English
        ("[1.59e+30 1.11e+30]", [("1", "number"), ("59e", "identifier"), ("30", "number"), ("1", "number"),
                                 ("11e", "identifier"), ("30", "number")]),
        ("values 3,5 and 7", [("3", "number"), ("5", "number"), ("7", "number")]),
    ],
)
def test_local_formats_are_literals(text, expected):
    assert [(lit.text, lit.kind) for lit in find_literals(text)] == expected


def test_a_decimal_comma_is_one_number_in_languages_that_write_one():
    assert [(x.text, x.kind) for x in find_literals("Rabatt 3,5 % auf 49,90", "de")] == [("3,5 %", "percent"),
                                                                                          ("49,90", "number")]
    assert [x.text for x in find_literals("Rabatt 3,5 % auf 49,90")] == ["3", "5 %", "49", "90"]


def _pieces(text, language=None):
    (pieces,) = segment_texts([text], get_pipeline(), language)
    return [(text[p.start:p.end], [(x.text, x.kind) for x in p.literals]) for p in pieces]


def test_german_nouns_are_not_names_but_a_title_and_its_name_are():
    got = _pieces("Der Preis ist gestiegen. Die Bestellung kam gestern bei Herr Müller an, sagt Frau Dr. Weber.")
    assert got == [("Der Preis ist gestiegen.", []),
                   ("Die Bestellung kam gestern bei Herr Müller an, sagt Frau Dr. Weber.",
                    [("Herr Müller", "name"), ("Frau Dr. Weber", "name")])]


def test_sentence_openers_of_other_languages_are_not_names():
    got = _pieces("Merci pour votre aide. Nous partons demain avec Claire à Lyon.")
    assert got == [("Merci pour votre aide.", []), ("Nous partons demain avec Claire à Lyon.",
                                                     [("Claire", "name"), ("Lyon", "name")])]


def test_chinese_prose_splits_at_its_sentence_marks_with_its_names():
    text = "行的，北京工体A. Hotel酒店听起来不错！地址是北京市海淀区双清路30号；电话010-84580888。好的"
    assert _pieces(text) == [
        ("行的，北京工体A. Hotel酒店听起来不错！", [("北京工体A. Hotel酒店", "name")]),
        ("地址是北京市海淀区双清路30号；", [("北京市海淀区双清路30号", "name")]),
        ("电话010-84580888。", [("010-84580888", "phone")]),
        ("好的", []),
    ]


def test_japanese_prose_splits_at_its_sentence_marks():
    assert [t for t, _ in _pieces("午後3時に東京駅で会いましょう。電話番号は03-1234-5678です！")] == [
        "午後3時に東京駅で会いましょう。", "電話番号は03-1234-5678です！"]


@pytest.mark.parametrize("text, names", [
    ("给您推荐北京工体A. Hotel酒店和北京中裕世纪大酒店，你看行吗？", ["北京工体A. Hotel酒店", "北京中裕世纪大酒店"]),
    ("大董(工体店)不错", ["大董(工体店)"]),
    ("飘HOME连锁酒店(北京前门大栅栏店)", ["飘HOME连锁酒店(北京前门大栅栏店)"]),
    ("推荐去北新桥卤煮老店吃", ["北新桥卤煮老店"]),
    ("这家酒店怎么样？附近有什么餐馆", []),  # no name before the end word
    # "家" is in names (如家, 国家, 农家院), not a word before one; "觉得" is
    ("我推荐如家快捷酒店(北京门头沟双峪环岛店)。", ["如家快捷酒店(北京门头沟双峪环岛店)"]),
    ("去国家大剧院看演出", ["国家大剧院"]),
    ("推荐您去烤肉宛饭庄，或者大三元酒家。", ["烤肉宛饭庄", "大三元酒家"]),  # restaurants by their other end words
    ("我觉得北京古韵坊怡景酒店比较适合我，可以把它家电话告诉我吗？", ["北京古韵坊怡景酒店"]),
    # "和" in a name, not between two
    ("去雍和宫看看，再住和平宾馆", ["雍和宫", "和平宾馆"]),
    ("北京饭店和长城饭店都不错", ["北京饭店", "长城饭店"]),
    # a verb of telling or an adverb is in no name: "老板经常聊起花园" was one
    ("我们老板经常聊起花园里的事。", []),
    ("那个孩子小声说起北京动物园。", ["北京动物园"]),
    ("您刚才说维也纳3好酒店(北京南站洋桥店)吗？我喜欢北京龙鼎华鼎云酒店", ["维也纳3好酒店(北京南站洋桥店)", "北京龙鼎华鼎云酒店"]),
    # a value after its key: an address to the end of its clause, the items of a dish list
    ("地址是北京市海淀区颐和园路5号。", ["北京市海淀区颐和园路5号"]),
    ("地址是在雅成一里19号楼世丰国际大厦2层(近朝阳大悦城)。", ["雅成一里19号楼世丰国际大厦2层(近朝阳大悦城)"]),
    ("推荐菜有香菇肉片, 私厨炖鱼, 清炒小油菜，都很不错呢", ["香菇肉片", "私厨炖鱼", "清炒小油菜"]),
    # a count of places is no name ("two hotels"), nor is it the head of the name after it
    ("周边只有两家酒店汉庭酒店(北京良乡大学城店)和橄榄树四季温泉酒店(北京良乡大学城店)",
     ["汉庭酒店(北京良乡大学城店)", "橄榄树四季温泉酒店(北京良乡大学城店)"]),
    ("这两家餐馆哪个的评分高？三家店都行，第5家酒店呢？", []),
    # "吃" stops a name before it ("吃…店" is no name), not inside "小吃店"
    ("周边餐馆有护国寺小吃店（护国寺总店）, 姚记炒肝店（鼓楼店）", ["护国寺小吃店（护国寺总店）", "姚记炒肝店（鼓楼店）"]),
    ("我想吃小吃店的东西", []),
    # other words that end names of places: a canteen, a farm kitchen, a food court, a gallery,
    # a guesthouse, a cave, a gorge, a stockade, a scenic area
    ("你好，我想去便便满屋饭堂用餐，请告诉我这家餐馆的电话。", ["便便满屋饭堂"]),
    ("推荐你去飞飞居农家饭这家餐馆", ["飞飞居农家饭"]),
    ("周边餐馆有八达岭长城天地文化小吃城、 庆丰包子铺", ["八达岭长城天地文化小吃城", "庆丰包子铺"]),
    ("去先声画廊吧！", ["先声画廊"]),
    ("我想去名字是北京亚运村民宿的酒店住宿", ["北京亚运村民宿"]),
    ("周边的景点有银狐洞, 石花洞。推荐您去十渡孤山寨或青龙山旅游区，还有云蒙峡和富国海底世界",
     ["银狐洞", "石花洞", "十渡孤山寨", "青龙山旅游区", "云蒙峡", "富国海底世界"]),
    ("世界花卉大观园", ["世界花卉大观园"]),  # "世界" opens names too: only "海底世界" ends one
    # a shop's name with a branch may open with "那" ("that"), where no name stands without it
    ("推荐您去那兰酒楼（潘家园店）吃饭。", ["那兰酒楼（潘家园店）"]),
    ("那家小馆(永安里店)的电话是多少？", ["那家小馆(永安里店)"]),
    ("好的，那北京饭店(王府井店)在哪？", ["北京饭店(王府井店)"]),
    ("我们去那家酒店吧。那酒店(王府井店)不错", []),
    # a hotel brand's "精选" / "智选" holds "选" (choose), which no name opens with: the name
    # was cut to "酒店" (none) or "假日酒店"
    ("好的，北京空港世纪商务精选酒店的价格是多少？", ["北京空港世纪商务精选酒店"]),
    ("推荐您去北京亦庄智选假日酒店。", ["北京亦庄智选假日酒店"]),
    ("推荐您住桔子酒店·精选(北京五棵松店)。", ["桔子酒店·精选(北京五棵松店)"]),
    ("我想选北京饭店。", ["北京饭店"]),  # ("选" alone still ends what runs before a name)
    # halls, theatres, churches end names too
    ("周边有太和殿、人民大会堂和国话先锋剧场", ["太和殿", "人民大会堂", "国话先锋剧场"]),
    ("推荐您去西什库教堂（北堂）看看。", ["西什库教堂（北堂）"]),
])
def test_chinese_names_by_their_end_words(text, names):
    assert [x.text for x in find_cjk_names(text)] == names


@pytest.mark.parametrize("text, names", [
    # (CrossWOZ answers: "故宫", "什刹海", "老书虫" end in no word that ends names)
    ("周边景点有故宫, 天安门广场, 中国国家博物馆, 什刹海, 前门", ["故宫", "天安门广场", "中国国家博物馆", "什刹海", "前门"]),
    ("当然可以，给您推荐恭王府，什刹海和北京动物园。", ["恭王府", "什刹海", "北京动物园"]),
    ("是的，周边餐馆有松子日本料理(亮马桥店), 老书虫, 大董(工体店)。", ["松子日本料理(亮马桥店)", "老书虫", "大董(工体店)"]),
    ("推荐您品尝他家的夫妻肺片、 清蒸鲈鱼、 金枪鱼披萨", ["夫妻肺片", "清蒸鲈鱼", "金枪鱼披萨"]),
    ("烤馒头和九转大肠都不错", []),  # two dishes, no name among them: no enumeration of names
    ("有北京饭店, 酒店", ["北京饭店"]),  # an end word alone is a kind, not a name
    # a number's comma is no list mark: "人均1" and "280元" of "人均1,280元" were names (hypothesis)
    ("周边餐馆有大董(工体店), 人均1,280元", ["大董(工体店)"]),
    ("推荐北京饭店、人均1,280元", ["北京饭店"]),
    ("谢谢, 好的", []),
])
def test_the_items_of_an_enumeration_of_chinese_names_are_names(text, names):
    assert [x.text for x in find_cjk_names(text)] == names


@pytest.mark.parametrize("text, names", [
    # A place recommended by a name no end word marks: the reply the talk then turns on
    # ("有没有故宫的电话？" "故宫电话是010-85007938。") was keyed by nothing.
    ("您好，给你推荐故宫。", ["故宫"]),
    ("为您推荐东兴顺爆肚张。", ["东兴顺爆肚张"]),
    ("推荐您去味多美这家餐馆有您要吃的菜", ["味多美"]),
    ("推荐您去捞王锅物料理，人均消费140元", ["捞王锅物料理"]),
    ("推荐您去北京贵都大酒店住宿。", ["北京贵都大酒店"]),  # (an end word's name, as before)
    # a kind, a count, two places, a dish, a request: no name
    ("推荐景点吧。", []),
    ("麻烦帮我推荐一个景点。", []),
    ("推荐一家评分5分的餐馆。", []),
    ("推荐您去八达岭长城和颐和园。", ["八达岭长城", "颐和园"]),  # (each by its end word)
    ("他家推荐菜么？", []),
    ("能推荐一下吗？", []),
    ("推荐您去人均消费366元。", []),
    # and a place a request calls by its name
    ("用过餐我想去名叫故宫的景点游玩，", ["故宫"]),
    ("我想去名叫东兴顺爆肚张的餐馆用餐", ["东兴顺爆肚张"]),
    ("他的名字叫做什么？", []),
    # a clause's opening word or a count is no part of the name after it
    ("鉴于三江源酒楼周边只有老诚一锅(密云店)一家餐馆", ["三江源酒楼", "老诚一锅(密云店)"]),
    ("我们希望酒店的评分是4.5分上", []),
    ("周边暂无酒店信息。", []),
    ("这么多餐馆呀", []),
    ("要经济型，然后酒店评分是5分。", []),
    ("玩完要找家餐馆吃饭", []),
    ("只有北京海润艾丽华酒店及服务公寓符合", ["北京海润艾丽华酒店及服务公寓"]),
    ("帮我看看他周边有什么景点和餐馆", []),  # two kinds, no name
    ("我对日坛公园比较感兴趣", ["日坛公园"]),
    ("有国际长途电话和中式餐厅的酒店", []),  # a facility
    ("抱歉酒店周边根本没有餐馆", []),
])
def test_a_recommended_place_is_a_name(text, names):
    assert [x.text for x in find_cjk_names(text)] == names


@pytest.mark.parametrize("text, dishes", [
    # What a guest wants to eat is the value of the request, as a date is a booking's.
    ("最近超级想吃手掰肠和柴锅鸡，请帮我推荐", ["手掰肠", "柴锅鸡"]),
    ("我想吃的菜肴是热巧克力，干锅传奇附近的餐馆", ["热巧克力"]),
    ("我想吃的菜是芝麻烧饼。", ["芝麻烧饼"]),
    ("好的，我想吃香椿鸡蛋这道菜，请帮我推荐", ["香椿鸡蛋"]),
    ("有蒿子杆这个菜。", ["蒿子杆"]),
    ("推荐一家有老婆饼 、枫糖小牛角面包这两道菜的餐馆", ["老婆饼", "枫糖小牛角面包"]),
    ("请帮我找一家有我爱吃的招牌乌鱼蛋汤的餐馆。", ["招牌乌鱼蛋汤"]),
    ("我晚上想找一家有印度咖喱锅底的店吃饭", ["印度咖喱锅底"]),
    ("哪家推荐菜里有拍黄瓜？", ["拍黄瓜"]),
    ("我想吃酸菜鱼，", ["酸菜鱼"]),  # a dish with 菜 in it
    # no dish: a meal, a thing, "a suitable one", "none that meets the conditions"
    ("我想吃饭，", []),
    ("想吃点东西，", []),
    ("中国美术馆周边有合适的餐馆吗？", ["中国美术馆"]),  # (a place, no dish)
    ("对不起没有查到符合条件的餐馆，", []),
    ("周边有什么景点呢，", []),
])
def test_the_dishes_a_guest_asks_for_are_values(text, dishes):  # (and the places named with them)
    assert [x.text for x in find_cjk_names(text)] == dishes


def test_cjk_units_have_content_words():
    (pieces,) = segment_texts(["这个酒店周边有什么景点呢？"], get_pipeline())
    assert set(pieces[0].words) == {"酒店", "周边", "景点", "店周"}  # pairs with no function character
    (pieces,) = segment_texts(["ホテルの予約をキャンセルしてください。"], get_pipeline())
    assert {"ホテル", "キャンセル", "予約"} <= set(pieces[0].words)


def test_a_mixed_conversation_reads_each_text_in_its_language():
    texts = ["Die Bestellung kam am 3. Mai 2024.", "订单号是A12345，价格775元。", "Caroline met Dana in Paris.",
             "Le colis coûte 49,90 € et arrive le 1er mars."]
    got = [[(t[p.start:p.end], [(x.text, x.kind) for x in p.literals]) for p in pcs]
           for t, pcs in zip(texts, segment_texts(texts, get_pipeline()))]
    assert got == [
        [("Die Bestellung kam am 3. Mai 2024.", [("3. Mai 2024", "date")])],
        [("订单号是A12345，价格775元。", [("A12345", "identifier"), ("775元", "amount")])],
        [("Caroline met Dana in Paris.", [("Caroline", "name"), ("Dana", "name"), ("Paris", "name")])],
        [("Le colis coûte 49,90 € et arrive le 1er mars.", [("49,90 €", "amount"), ("1er mars", "date")])],
    ]


def test_a_given_language_overrides_detection():
    text = "Die Bestellung kam."
    assert _pieces(text, "en") == [(text, [("Die Bestellung", "name")])]  # read as English: capitals are names
    assert _pieces(text, "de") == [(text, [])]


_MIXED = st.text(st.sampled_from(list("北京酒店的是元分天号年月日 ,.-:/€￥+()0123456789AaBbZz。！？") + [" ", "\n"]),
                 max_size=80)


@settings(max_examples=300, deadline=None)
@given(_MIXED)
def test_every_literal_slices_back_on_cjk_and_latin_mixtures(text):
    for lang in ("zh", "en", "de"):
        for lit in find_literals(text, lang) + find_cjk_names(text):
            assert text[lit.start:lit.end] == lit.text
        for pcs in segment_texts([text], get_pipeline(), lang):
            for p in pcs:
                body = text[p.start:p.end]
                for lit in p.literals:
                    assert body[lit.start:lit.end] == lit.text


@pytest.mark.parametrize("table", [False, True])
def test_a_cjk_clip_keeps_as_many_words_as_an_english_one(table):
    """Twelve tokens are six Chinese characters (``哦算了吧，我现在想 …``): a piece written
    in Han, kana or Hangul keeps twice the tokens in its head, and one only half again as
    long as that head is not clipped at all. Both ways of measuring agree (one encoding
    per text, or each piece apart: a counter without a token table)."""
    from discourse_memory.tokens import get_token_counter
    from discourse_memory.units import Analyzer

    counter = get_token_counter()

    class Plain:  # the same counts, without the token table (the per-piece path)
        count = staticmethod(counter.count)
        head = staticmethod(counter.head)

    analyzer = Analyzer(counter if table else Plain())
    long_zh = "我们下午先去故宫博物院参观，然后在王府井大街附近找一家评分在四分以上的北京烤鸭店吃晚饭，最后打车回酒店休息。"
    short_zh = "地址为东四十条23号，周边有三家很好的餐厅。"
    english = ("We will first visit the Palace Museum in the afternoon, then find a Peking duck restaurant rated "
               "above four near Wangfujing for dinner, and finally take a taxi back to the hotel.")
    (zh,), (short,), (en,) = (analyzer.analyse([t])[0] for t in (long_zh, short_zh, english))
    zh_head = long_zh[:zh.head_end]
    en_words = len(english[:en.head_end].split())
    assert zh.head_end < len(long_zh) and en.head_end < len(english)
    assert counter.count(zh_head) > 1.5 * counter.count(english[:en.head_end])
    assert len(zh_head) >= 1.5 * en_words  # a Chinese word is one to two characters
    assert short.head_end == len(short_zh)  # not worth clipping


@pytest.mark.parametrize("text, value, context", [
    ("锦江之星(北京通州北苑地铁站店)的评分是4.4分，周边的景点有韩美林艺术馆。", "4.4分", "评分是4.4分"),  # not "的评分是4.4分"
    ("这个景点的评分是4分。", "4分", "评分是4分"),
    ("人均消费是74元。", "74元", "人均消费是74元"),
    ("帮我找一个门票100-150元能玩3小时的地方。", "3小时", "100-150元能玩3小时"),  # not "元能玩3小时"
    ("您也可以电话咨询一下电话是010-51979888。", "010-51979888", "电话是010-51979888"),  # the key, not "一下电话是"
    ("这里的门票价格是40元。", "40元", "门票价格是40元"),
])
def test_a_cjk_value_is_keyed_by_what_follows_a_possessive(text, value, context):
    from discourse_memory.record.context import _in_context
    start = text.index(value)
    lo, hi = _in_context(text, start, start + len(value))
    assert text[lo:hi] == context


def _zh_places() -> list[tuple[str, str]]:
    places = ["天安门广场", "欢乐水魔方水上乐园", "绿岛乐园", "北京海洋馆", "北京动物园", "八达岭长城"]
    return [(p, f"010-{65666606 + 1111 * i}") for i, p in enumerate(places)]


def test_a_reply_without_the_name_its_question_asks_about_is_keyed_by_it():
    # "电话是010-65666606。" says whose phone it is only with the question before it.
    chat = []
    days = "一二三四五六七八九十"
    for i, (place, phone) in enumerate(_zh_places()):
        chat.append({"role": "user", "content": f"好的，那{place}的电话是多少？"})
        chat.append({"role": "assistant", "content": f"电话是{phone}。"})
        chat.append({"role": "user", "content": "".join(
            f"谢谢你。第{days[i]}天第{days[k]}次我们想慢慢地走一走，看看周围的风景再说吧。" for k in range(4))})
        chat.append({"role": "assistant", "content": "".join(
            f"不客气。祝您第{days[i]}天第{days[k]}次玩得开心，有问题随时再联系我。" for k in range(4))})
    chat.append({"role": "user", "content": "好的，再见。"})
    keyed = 0
    for share in (0.2, 0.3, 0.4):
        r = compact(chat, int(view_tokens(chat, framing=False) * share), message_overhead="none")
        for e in r.report.entries:
            for value in e.values:
                place = next((p for p, phone in _zh_places() if phone == value), None)
                if place is not None:
                    assert e.label.endswith(f"assistant re {place}"), e.label
                    keyed += 1
    assert keyed >= 3


def test_a_reply_that_names_its_subject_or_answers_no_question_has_no_key():
    chat = [{"role": "user", "content": "Caroline: Hey Mel! How was the trip to Paris with the kids?"},
            {"role": "assistant", "content": "Melanie: Paris was lovely, we stayed at the Hotel Lutetia on 45 "
                                             "Boulevard Raspail for 6 nights. " + FILLER_EN},
            {"role": "user", "content": "Caroline: That's great, I visited Oslo in May. " + FILLER_EN},
            {"role": "assistant", "content": "Melanie: Nice, we paid 240 euros for the tickets. " + FILLER_EN},
            {"role": "user", "content": "Caroline: Bye for now!"}]
    r = compact(chat, view_tokens(chat) // 4)
    assert r.report.entries
    assert not any(" re " in e.label for e in r.report.entries), [e.label for e in r.report.entries]


FILLER_EN = "The day went on about nothing in particular for a long while. " * 6
