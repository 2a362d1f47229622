"""Hearsay: a statement that only relays what is going round or what someone unnamed said
("apparently", "word is", "someone said", "I'm hearing", "is understood to", "my mate
reckons", "anyone know if ..."), a hedge like "reportedly". Round 12, from the chat, forum,
phone-in and gossip voices of the tuning worlds (docs/quality.md); round 13 added "word on
the shop floor is" and "I'm told" (a staff-review site's voice); round 14 "a little bird
tells me", "one hears", "is said to", "or so they say", "the smart money is on" and the
writer's own guess ("I am inclined to", "my working assumption"); round 15 "we are told", "I'm
reliably told", "the word on the garage floor is that", "it has been suggested to us",
"according to our information", "not confirmed", and a lad, chap or bloke as the teller. "Hear,
hear!" is a cheer."""

from __future__ import annotations

from dataclasses import dataclass, field

from graphmem.props.wordlist import word_set

HEARSAY_WORDS = word_set(
    "apparently seemingly reputedly reckon reckons reckoned unofficially unofficial"
)
HEAR = word_set("heard hearing hear")
# who hears: "I'm hearing", "we've heard", "heard tomasz is leaving", "anyone else heard"; "are"
# only after "we" ("councillors are hearing evidence" is no rumour)
HEARERS = word_set("i i'm im i've ive we we're we've am else keep") | {""}
# a clause opened by these shares the subject of the clause before: "the court sat and heard
# evidence" is the court's hearing, not the writer's
JOINERS = ("and", "but")
SAY = word_set("say says said saying told tells")
# an unnamed or second-hand teller: "someone at the school gate said", "my cousin says"
TELLERS = word_set(
    """
    someone somebody mate mates pal buddy cousin sister brother mum mom dad aunt uncle
    neighbour neighbor friend nurse pharmacist colleague caller contact source lad chap bloke
    """
)
# tokens between the teller and the verb: "my neighbour's on the committee and says"
TELLER_REACH = 7
# the writer's own circle: "my mate Dave says" is second-hand though Dave is named
OWN = word_set("my me our")
ASKING = word_set("anyone anybody")
ASKED = word_set("know knows heard hear hearing confirm")
BE = word_set("is are was were been being")
# "word on the shop floor is", "word in the corridors is": where the word goes round
WORD_WHERE = word_set("on in around at among from")
WORD_REACH = 6
# the writer was told: "I'm told", "I am told", "I've been told", "so I was told"
TOLD_BY_ME = (["i'm"], ["im"], ["i", "am"], ["i", "was"], ["i've", "been"], ["i", "have", "been"])
# round 15: the writers' "we" ("we are told", "we've been told") and "I'm reliably told"
TOLD_BY_US = (["we", "are"], ["we're"], ["we", "were"], ["we've", "been"], ["we", "have", "been"])
TOLD_HOW = word_set("reliably")


# round 14, from gossip columns, trade newsletters and scholarly notes of six authors' worlds;
# round 15: "it has been suggested (to us) that", "according to our information"
GOSSIP_CUES = word_set("bird said say money inclined assumption suggested information")


@dataclass
class Words:
    """A statement's lower-case words (possessive "'s" removed, numbers and breaks left out);
    the break before each word that opens a clause ("," or "and", say; "" before the first);
    the words written with a capital; the words that open a sentence."""

    text: list[str] = field(default_factory=list)
    opens: dict[int, str] = field(default_factory=dict)
    capital: set[int] = field(default_factory=set)
    starts: set[int] = field(default_factory=set)


def is_hearsay(words: Words, i: int) -> bool:
    """Whether word i of a statement marks hearsay."""
    text, word = words.text, words.text[i]
    prev = text[i - 1] if i and i not in words.opens else ""
    nxt = text[i + 1] if i + 1 < len(text) else ""
    if word in HEARSAY_WORDS:
        return True
    if word in ("hears", "heard") and prev == "one":  # "one hears that"; not "no one heard"
        return text[i - 2 : i - 1] not in (["no"], ["every"], ["any"], ["each"])
    if word in HEAR:
        return _heard(words, i, prev, nxt)
    if word == "word":  # "word is ...", "word has it ...", "word on the street is ..."
        if _opens(words, i):
            return _word_goes_round(words, i, nxt)
        # "The word on the garage floor is that ..." (not "the word on the agenda is final")
        return prev == "the" and _opens(words, i - 1) and _word_goes_round(words, i, nxt, "that")
    if word == "understood":  # "is understood to", "it is understood that"
        return prev in BE and (nxt in ("to", "that") or text[i - 2 : i - 1] == ["it"])
    if word == "official":  # "nothing official", "not official yet"
        return prev in ("nothing", "not")
    if word == "confirmed":  # "Not confirmed, so don't hold us to it."
        return prev == "not" and _opens(words, i - 1)
    if word in ASKING:  # "anyone know if", "anyone else heard"; not "anyone else wishing to"
        asked = text[i + 2] if nxt == "else" and i + 2 < len(text) else nxt
        return asked in ASKED
    if word == "that":  # "is that true??"
        return prev == "is" and nxt in ("true", "right")
    if word in GOSSIP_CUES and _goes_round(words, i, prev, nxt):
        return True
    if word == "told" and _told_to_writer(text, i):
        return _told_me(words, i, nxt)
    if word in SAY:
        return _told(words, i)
    return False


def _goes_round(words: Words, i: int, prev: str, nxt: str) -> bool:
    """ "a little bird tells me", "is said to have", "it is said that", "or so they say", "the
    smart money is on", "I am inclined to see", "my working assumption": what is going round,
    or the writer's guess."""
    text, word = words.text, words.text[i]
    before = text[i - 2] if i >= 2 and i - 1 not in words.opens else ""
    after = text[i + 2] if i + 2 < len(text) else ""
    if word == "bird":
        return prev == "little"
    if word == "suggested":  # "it has been suggested (to us) that"; not "... by the chair"
        return prev == "been" and before in ("has", "had", "have") and nxt in ("to", "that")
    if word == "information":  # "according to our information"; not "our information evening"
        return prev == "our" and before == "to" and text[i - 3 : i - 2] == ["according"]
    if word == "said":
        # "it was said that" reports a statement ("on behalf of the trustees it was said")
        return prev in BE and (nxt == "to" or (nxt == "that" and before == "it" and prev == "is"))
    if word == "say":
        return prev == "they" and before == "so"
    if word == "money":
        return nxt == "on" or (nxt == "is" and after == "on")
    if word == "inclined":
        return nxt == "to"
    return word == "assumption" and prev == "working"


def _told_to_writer(text: list[str], i: int) -> bool:
    """ "I'm told", "we are told", "I'm reliably told": the writer was told."""
    end = i - 1 if i and text[i - 1] in TOLD_HOW else i
    return any(text[max(0, end - len(me)) : end] == me for me in (*TOLD_BY_ME, *TOLD_BY_US))


def _told_me(words: Words, i: int, nxt: str) -> bool:
    """ "I'm told ..." relays hearsay; "I was told to leave" is an instruction, and "I was told
    by the finance director" says who told, unless it is an unnamed or second-hand teller ("I
    was told by a friend", "by my mate Dave")."""
    if nxt == "to":
        return False
    if nxt != "by":
        return True
    reach = range(i + 2, min(len(words.text), i + 2 + 3))
    return any(words.text[j] in TELLERS and not _named(words, j) for j in reach)


def _opens(words: Words, i: int) -> bool:
    """Whether word i opens a clause or a sentence (full stops are no clause breaks here)."""
    return i in words.opens or i in words.starts


def _word_goes_round(words: Words, i: int, nxt: str, then: str = "") -> bool:
    """After an opening "word": "is" / "has" at once, or after where it goes round, in the
    same clause ("word on the shop floor is that ..."); followed by `then` if given."""
    text = words.text
    if nxt in ("is", "has"):
        return not then or text[i + 2 : i + 3] == [then]
    if nxt not in WORD_WHERE:
        return False
    for j in range(i + 2, min(len(text), i + 2 + WORD_REACH)):
        if j in words.opens:
            return False
        if text[j] in ("is", "has"):
            return not then or text[j + 1 : j + 2] == [then]
    return False


def _heard(words: Words, i: int, prev: str, nxt: str) -> bool:
    """Whether "hear"/"heard"/"hearing" is the writer's (or their circle's) hearing."""
    if nxt == "by" or words.opens.get(i) in JOINERS:  # "heard by the court", "met and heard"
        return False
    if "hear" in (words.text[i - 1] if i else "", nxt):  # "Hon. Members: Hear, hear!" cheers
        return False
    if prev == "are":  # "we are hearing"
        return words.text[i - 2 : i - 1] == ["we"]
    # "you may have heard" is the writer's, not a hearer's
    return prev in HEARERS and "you" not in words.text[max(0, i - 3) : i]


def _told(words: Words, i: int) -> bool:
    """Whether a say-verb's teller is unnamed or second-hand: a teller within TELLER_REACH
    words before it. Past a comma only when the verb opens its clause ("a source, who asked
    not to be named, said"), not when the clause has a subject of its own ("contact the
    helpline, the council said"); "and"/"but" may come between ("my neighbour's on the
    committee and says")."""
    across = words.opens.get(i, "and") not in JOINERS
    for j in range(i - 1, max(0, i - TELLER_REACH) - 1, -1):
        if words.text[j] in TELLERS:
            return not _named(words, j)
        if not across and words.opens.get(j, "and") not in JOINERS:
            return False
    return False


def _named(words: Words, j: int) -> bool:
    """Whether the teller at j is named right after it ("senior nurse Jane Okafor said", "the
    pharmacist, Raj Patel, said"), and not of the writer's circle ("my mate Dave says")."""
    owner = words.text[j - 1] if j else ""
    return j + 1 in words.capital and owner not in OWN
