"""Hearsay: a statement that only relays what is going round or what someone unnamed said
("apparently", "word is", "someone said", "I'm hearing", "is understood to", "my mate
reckons", "anyone know if ..."), a hedge like "reportedly". Round 12, from the chat, forum,
phone-in and gossip voices of the tuning worlds (docs/quality.md)."""

from __future__ import annotations

from graphmem.props.wordlist import word_set

HEARSAY_WORDS = word_set(
    "apparently seemingly reputedly reckon reckons reckoned unofficially unofficial"
)
HEAR = word_set("heard hearing hear")
# who hears: "I'm hearing", "we've heard", "heard tomasz is leaving", "anyone else heard"
HEARERS = word_set("i i'm im i've ive we we're we've am are else keep") | {""}
SAY = word_set("say says said saying told tells")
# an unnamed or second-hand teller: "someone at the school gate said", "my cousin says"
TELLERS = word_set(
    """
    someone somebody mate mates pal buddy cousin sister brother mum mom dad aunt uncle
    neighbour neighbor friend nurse pharmacist colleague caller contact source
    """
)
# tokens between the teller and the verb: "my neighbour's on the committee and says"
TELLER_REACH = 7
ASKING = word_set("anyone anybody")
ASKED = word_set("know knows else heard hear hearing confirm")
BE = word_set("is are was were been being")


def is_hearsay(words: list[str], i: int, opens_clause: bool) -> bool:
    """Whether word i of a statement's lower-case words (possessive "'s" removed, numbers and
    breaks left out) marks hearsay; `opens_clause` when it is its clause's first word."""
    word = words[i]
    prev = words[i - 1] if i and not opens_clause else ""
    nxt = words[i + 1] if i + 1 < len(words) else ""
    if word in HEARSAY_WORDS:
        return True
    if word in HEAR:  # "you may have heard" is the writer's, not a hearer's
        return prev in HEARERS and "you" not in words[max(0, i - 3) : i]
    if word == "word":  # "word is ...", "word has it ..." opening the clause
        return opens_clause and nxt in ("is", "has")
    if word == "understood":  # "is understood to", "it is understood that"
        return prev in BE and (nxt in ("to", "that") or words[i - 2 : i - 1] == ["it"])
    if word == "official":  # "nothing official", "not official yet"
        return prev in ("nothing", "not")
    if word in ASKING:
        return nxt in ASKED
    if word == "that":  # "is that true??"
        return prev == "is" and nxt in ("true", "right")
    if word in SAY:
        return not TELLERS.isdisjoint(words[max(0, i - TELLER_REACH) : i])
    return False
