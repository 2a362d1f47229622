"""Offline extraction reads a document's layout: lists, tables, headings and e-mail."""

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.props import mail
from graphmem.props.extract import chunks, offline_statements, split_into_propositions
from graphmem.props.forms import apart, slot
from graphmem.props.layout import Block, blocks
from graphmem.props.model import Proposition, make_proposition
from graphmem.props.sentences import statements
from graphmem.strings import MAX_ABOUT

PRICING = """## Pricing

The plans cost, from 1 April:
- Starter: £9 a month
- Pro: £29 a month, up from £25
  and billed yearly

| Plan | Seats | Support |
|------|-------|---------|
| Starter | 1 | email |
| Pro | 5 | phone |
"""


def test_each_list_item_is_a_statement_led_by_the_line_introducing_the_list() -> None:
    assert statements(PRICING)[:2] == [
        "The plans cost, from 1 April: Starter: £9 a month",
        "The plans cost, from 1 April: Pro: £29 a month, up from £25 and billed yearly",
    ]


def test_a_table_row_is_read_with_its_column_names_under_its_heading() -> None:
    assert statements(PRICING)[2:] == [
        "Pricing: Plan: Starter; Seats: 1; Support: email",
        "Pricing: Plan: Pro; Seats: 5; Support: phone",
    ]


def test_items_under_a_heading_are_led_by_it() -> None:
    text = "Office move\n===========\n\n* New address: 4 King Street, Leeds\n* From 1 June 2025\n"
    assert statements(text) == [
        "Office move: New address: 4 King Street, Leeds",
        "Office move: From 1 June 2025",
    ]


def test_a_numbered_agenda_item_with_no_full_stop_heads_the_lines_under_it() -> None:
    minutes = (
        "1. Apologies\nNone received.\n2. Finance\nThe treasurer reported a surplus of "
        "£2,400. Action: JS to circulate the accounts.\n3. The hall roof was repaired in May.\n"
    )
    assert statements(minutes) == [
        "Apologies: None received.",
        "Finance: The treasurer reported a surplus of £2,400.",
        "Action: JS to circulate the accounts.",
        "The hall roof was repaired in May.",
    ]


REPLY = """From: Anna Smith <anna@acme.example>
To: team@acme.example
Date: Tue, 4 Mar 2025 10:02
Subject: Re: Orbit launch date

Hi all,

Confirmed: the Orbit launch moves to 12 March.

Thanks,
Anna

Anna Smith | Head of Product
Acme Ltd | +44 1234 567890

On Mon, 3 Mar 2025 at 09:00, Ben Jones <ben@acme.example>
wrote:
> The Orbit launch is on 5 March.
> Can you confirm?

This e-mail is confidential and intended only for the addressee. If you have received this
e-mail in error, please tell the sender.
"""


def test_a_reply_keeps_only_what_its_author_wrote() -> None:
    # the quoted message stated "5 March" on 3 March: stored under the reply's date it would
    # pass for new, so it is stated on its own date; headers, greeting, sign-off, signature
    # and notice are no statements
    assert split_into_propositions(REPLY, "2025-03-04") == [
        {
            "text": "Confirmed: the Orbit launch moves to 12 March.",
            "date": "2025-03-04",
            "about": "Orbit launch date",  # the subject
        },
        {
            "text": "The Orbit launch is on 5 March. Can you confirm?",
            "date": "2025-03-03",
            "about": "Orbit launch date",  # a quoted message is under the thread's subject
        },
    ]
    # a quote with no attribution cannot be dated: left out
    assert statements("From: Ann\nTo: Ben\n\nYes.\n\n> The fee is £20.\n") == ["Yes."]


def test_field_lines_are_statements_of_their_own() -> None:
    text = (
        "## Orbit\nStatus: Live\nOwner: Anna Smith\n\nDecision: The committee agreed to raise"
        " fees\nto £40 from April.\nAction: JS to send the revised quote.\n"
    )
    assert statements(text) == [
        "Orbit: Status: Live",
        "Orbit: Owner: Anna Smith",
        "Orbit: Decision: The committee agreed to raise fees to £40 from April.",
        "Orbit: Action: JS to send the revised quote.",
    ]


def test_a_short_reply_is_led_by_its_subject() -> None:
    text = "Subject: RE: Fwd: Orbit launch date\n\nYes, moved to the week after.\n"
    assert statements(text) == ["Orbit launch date: Yes, moved to the week after."]


def test_an_outlook_reply_stops_at_the_original_message() -> None:
    text = (
        "The Orbit launch is now on 19 March.\n\n-----Original Message-----\n"
        "From: Ben\nThe Orbit launch is on 12 March.\n"
    )
    assert statements(text) == ["The Orbit launch is now on 19 March."]


def test_a_forwarded_message_is_kept_without_its_headers() -> None:
    text = (
        "FYI, see below.\n\n-- \nCarl\n\n---------- Forwarded message ---------\n"
        "From: Dana <dana@acme.example>\nDate: Fri, 28 Feb 2025\nSubject: Orbit\n\n"
        "The Orbit launch is on 12 March.\n"
    )
    assert statements(text) == ["FYI, see below.", "The Orbit launch is on 12 March."]


def test_thanks_that_open_a_message_do_not_end_it() -> None:
    text = (
        "From: Anna\nTo: Ben\n\nThanks!\n\nThe Orbit launch moved to 19 March because the "
        "certification slipped.\n\nBest,\nAnna\n"
    )
    assert statements(text) == [
        "Thanks!",
        "The Orbit launch moved to 19 March because the certification slipped.",
    ]


def test_lines_that_only_look_like_mail_are_a_pages_own() -> None:
    # no headers at its top, no attribution: not a message, so nothing is left out as one
    page = (
        "Trip summary.\nFrom: London\nTo: Paris\nCost: £300\n\n## Best practices\n\n"
        "- Use staging first\n\n> Note: the API requires a key.\n\nOur offices are in\nLondon,"
        "\nParis and Berlin.\n"
    )
    assert statements(page) == [
        "Trip summary.",
        "From: London To: Paris Cost: £300",
        "Best practices: Use staging first",
        "Best practices: Note: the API requires a key.",
        "Our offices are in London, Paris and Berlin.",
    ]


def test_a_last_line_standing_alone_is_a_statement_not_a_heading() -> None:
    assert statements("Acme moved its HQ to Leeds") == ["Acme moved its HQ to Leeds"]
    assert statements("The board met.\n\nAlice resigned\n\nBob stays.") == [
        "The board met.",
        "Alice resigned",
        "Bob stays.",
    ]
    assert statements("| CEO | Rosa |\n| CTO | Dan |") == ["CEO; Rosa", "CTO; Dan"]
    notes = "Notes from Monday.\n\nDeadline - submit the report by 17:00\n\nBudget is £5k."
    assert statements(notes) == [
        "Notes from Monday.",
        "Deadline - submit the report by 17:00",
        "Budget is £5k.",
    ]


def test_prose_reads_as_before() -> None:
    text = (
        "Mara Quint chairs the Orrin Trust. She took over in 2019.\n\n"
        "The trust has 340 members; - it had 400.\n> a page's quoted line is its text"
    )
    assert blocks(text) == [
        Block("Mara Quint chairs the Orrin Trust. She took over in 2019."),
        Block("The trust has 340 members; - it had 400. a page's quoted line is its text"),
    ]
    assert statements(text)[0] == "Mara Quint chairs the Orrin Trust. She took over in 2019."


def test_offline_extraction_dates_every_statement_with_the_document() -> None:
    found = split_into_propositions(PRICING, "2025-03-01")
    assert len(found) == 4 and {p["date"] for p in found} == {"2025-03-01"}


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab #|->*-:.1\n =_")), max_size=300))
def test_any_layout_reads_without_error_and_adds_no_words(text: str) -> None:
    for statement in statements(text):
        assert statement.strip()
        assert _words(statement) <= _words(text)


def _words(text: str) -> set[str]:
    """Words, with Markdown's emphasis and heading marks ("# 1#": a heading "1") and the
    separators the reading adds left out."""
    while (plain := re.sub(r"\*\*|__|`", "", text)) != text:  # "1*__*" holds "**" once "__" goes
        text = plain
    return set(re.sub(r"[|:;>#\u203a]", " ", text).split())


def test_a_dated_heading_dates_the_statements_under_it() -> None:
    changelog = (
        "# Changelog\n\n## [2.5.0] - 2024-01-15\n### Added\n- Recurring invoices.\n\n"
        "## [2.4.0] - 2023-08-02\n### Removed\n- The XML export.\n\n"
        "## Roadmap for 2025 and beyond\n- A mobile app.\n"
    )
    found = split_into_propositions(changelog, "2024-01-20")
    assert [(p["date"], p["text"]) for p in found] == [
        ("2024-01-15", "[2.5.0] - 2024-01-15 \u203a Added: Recurring invoices."),
        ("2023-08-02", "[2.4.0] - 2023-08-02 \u203a Removed: The XML export."),
        # a heading that says more than a date dates nothing
        ("2024-01-20", "Changelog \u203a Roadmap for 2025 and beyond: A mobile app."),
    ]
    # a heading dated after the document does not move its statements forward
    assert {p["date"] for p in split_into_propositions(changelog, "2023-09-01")} == {
        "2023-08-02",
        "2023-09-01",
    }


def test_minutes_agenda_items_head_their_decisions_and_attendance_is_left_out() -> None:
    minutes = (
        "EASTBROOK HALL COMMITTEE\n17 May 2023\n\nPresent: MO (Chair), JS, AK\n\n"
        "1. Apologies \u2014 none.\n\n2. Matters arising\n2.1 Funding plan: reserves £40k.\n"
        "3. Car park\nDecision: Resurfacing approved, budget £9,000.\nAction: TR to get quotes.\n"
    )
    assert statements(minutes) == [
        "EASTBROOK HALL COMMITTEE \u203a Matters arising: Funding plan: reserves £40k.",
        "EASTBROOK HALL COMMITTEE \u203a Car park: Decision: Resurfacing approved, budget £9,000.",
        "EASTBROOK HALL COMMITTEE \u203a Car park: Action: TR to get quotes.",
    ]


def test_chat_messages_are_statements_of_their_own() -> None:
    chat = "[09:14] Priya: pitch 2 is booked for Saturday\n[09:15] Tom: great, thanks\n"
    assert statements(chat) == ["Priya: pitch 2 is booked for Saturday", "Tom: great, thanks"]


def test_an_answer_under_a_question_heading_is_led_by_the_question() -> None:
    faq = "## Is the Pro price going up again?\n\nNo. There is no price change planned.\n"
    assert statements(faq) == [
        "Is the Pro price going up again?: No. There is no price change planned."
    ]


def test_an_earlier_message_below_a_reply_is_stated_on_the_date_it_was_sent() -> None:
    text = (
        "The launch is now on 19 March.\n\nRaj Patel | IT Lead | Oakridge Dental\n"
        "Tel 01234 567890\n\nFrom: Ben Carter\nSent: 3 March 2025 09:00\nTo: Raj\n"
        "Subject: Launch\n\nHi Raj,\n\nThe launch is on 12 March.\n\nKind regards,\nBen\n"
        "\n-----Original Message-----\nFrom: Raj\nSent: 01/03/2025 08:00\n\nWhen is it?\n"
    )
    assert split_into_propositions(text, "2025-03-05") == [
        {"text": "The launch is now on 19 March.", "date": "2025-03-05"},
        {"text": "The launch is on 12 March.", "date": "2025-03-03", "about": "Launch"},
        # "01/03/2025" is January or March: a message that cannot be dated is left out
    ]


def test_a_reply_header_names_who_writes_and_an_edit_line_is_no_statement() -> None:
    ticket = (
        "*Last edited 23 November 2024 by Hannah Cole*\n\n"
        "Leon Marsh (Support) - 6 Mar 2023, 10:17\nthanks, fixed in 3.4.1\n\n"
        "The AGM starts at 10:30 in Brook Road hall.\n"
    )
    assert statements(ticket) == [
        "Leon Marsh (Support): thanks, fixed in 3.4.1",
        "The AGM starts at 10:30 in Brook Road hall.",
    ]


def test_statements_filling_other_slots_of_a_form_are_apart() -> None:
    def prop(text: str, date: str = "2024-01-01") -> Proposition:
        return make_proposition(text, date)

    ceo, cto = (
        prop("Team › Leadership: CEO: Rosa Whitfield"),
        prop("Team › Leadership: CTO: Dan Osei"),
    )
    assert apart(prop("Team › Leadership: CTO: Hannah Lind", "2024-06-01"), ceo)
    assert not apart(prop("Team › Leadership: CTO: Hannah Lind", "2024-06-01"), cto)
    row = prop("Pricing: plan: Pro; price: £29/month; seats: 5")
    assert apart(prop("Pricing: plan: Team; price: £79/month; seats: 15", "2024-06-01"), row)
    assert not apart(prop("Pricing: plan: Pro; price: £35/month; seats: 5", "2024-06-01"), row)
    # items of one list, stated the same day, are not updates of each other
    assert apart(prop("Support › Escalation: CTO"), prop("Support › Escalation: Head of Support"))
    # a cell may hold "; ": the row is still its first cell's
    timeline = prop("Timeline (UTC): Time: 11:47; Event: Errors back to normal; status page green")
    assert apart(prop("Timeline (UTC): Time: 13:00; Event: Incident closed"), timeline)
    # prose is never a form's: the classifier judges it
    assert slot("Correction: the trial is 21 days, not 30 days as stated.") is None
    assert slot("Members (January 2018): 238.") is None
    assert slot("Menu › Starters › Soup of the day") is None  # a path, no field


def test_statements_of_one_part_of_a_document_on_one_date_are_apart() -> None:
    def said(text: str, date: str, doc: str | None, part: str | None = "0.0") -> Proposition:
        return replace(make_proposition(text, date, None, doc), part=part)

    fee = "The price of a 45-minute lesson will be £14.50."
    other = "The price of a 30-minute lesson will be £10.25."
    assert apart(said(other, "2024-06-18", "doc_a"), said(fee, "2024-06-18", "doc_a"))
    # another document, another date, or another message, post or chat line of the same one
    # (a same-day reply, a quoted message): the classifier judges them
    assert not apart(said(other, "2024-06-18", "doc_b"), said(fee, "2024-06-18", "doc_a"))
    assert not apart(said(other, "2024-06-18", "doc_a"), said(fee, "2024-06-11", "doc_a"))
    assert not apart(said(other, "2024-06-18", "doc_a"), said(fee, "2024-06-18", "doc_a", "1.0"))
    assert not apart(said(other, "2024-06-18", "doc_a", None), said(fee, "2024-06-18", "doc_a"))
    # the parts a document's reading gives: messages, posts, chat lines
    thread = (
        "From: Ann Lee <ann@example.org>\nTo: Ben\nDate: 10 Mar 2025\nSubject: Launch\n\n"
        "The launch is now on 19 March.\n\nThe venue is the Corn Exchange.\n\n"
        "On 10 March 2025 at 09:12, Ben Carter <ben@example.org> wrote:\n"
        "> The launch is on 12 March.\n"
    )
    parts = [s.part for s in offline_statements(thread, "2025-03-10")]
    assert parts[0] == parts[1] != parts[2]
    chat = (
        "[02/10/2023, 09:00] Liz: Troughs off from 30 October.\n"
        "[14/10/2023, 10:00] Tom: Now 6 November.\n"
    )
    first, second = offline_statements(chat, "2023-10-14")
    assert first.part != second.part


TICKET = """Ticket #48213
Subject: Bank feed not updating

---------------------------------------------
Ruth Hargreaves - 6 Mar 2023, 08:41

Hi,

Our bank feed from Harbour Bank stopped on 2 March.

Thanks
Ruth

---------------------------------------------
-- Leon Marsh (Support), 6 Mar 2023 10:17 --

Hi Ruth, the fix for BUG-2291 ships in v3.4.0 on 14 March.

Kind regards,
Leon
Tallybook Support | help.tallybook.io

[Aisha Rahman, 2023-03-16 15:48]
Hello Ruth,

Existing connections need to be refreshed once.

Aisha

Tom Bright | 20 Nov 2023 16:22
Hope that helps,
Tom
"""


def test_a_ticket_thread_keeps_its_messages_without_greetings_sign_offs_or_names() -> None:
    assert statements(TICKET) == [
        "Our bank feed from Harbour Bank stopped on 2 March.",
        "the fix for BUG-2291 ships in v3.4.0 on 14 March.",  # names what it says
        "Aisha Rahman: Existing connections need to be refreshed once.",
    ]


def test_a_letter_keeps_its_body_without_salutation_close_or_postcode_heading() -> None:
    letter = (
        "  27 Church Street\n  Kelworth\n  KL3 7RB\n\n  14th October 2022\n\n"
        "Dear Sir or Madam,\n\nThe scaffolding on Church Street has blocked the footpath "
        "for two months.\n\nYours faithfully,\n\n\nJ. Halloran (Mr)\n\nEnc.\ncc: Ms F. Wren\n"
    )
    said = statements(letter)
    assert said[-1] == "The scaffolding on Church Street has blocked the footpath for two months."
    assert not any("KL3 7RB:" in s or "Dear" in s or "faithfully" in s for s in said)


def test_what_only_looks_like_a_greeting_or_sign_off_is_a_pages_own() -> None:
    page = (
        "Thanks to our sponsors:\n- Acme Ltd\n- Brook Bakery\n\nThe stall raised £420.\n\n"
        "DATES\n\n* Sat 16 Mar - Bag pack at Tesco, volunteers needed\n\n"
        "Thanks,\nthe new kit arrives on 3 April.\n\nMorning coaching\nruns 9-11 on Saturdays.\n"
    )
    assert statements(page) == [
        "Thanks to our sponsors: Acme Ltd",
        "Thanks to our sponsors: Brook Bakery",
        "The stall raised £420.",
        "DATES: Sat 16 Mar - Bag pack at Tesco, volunteers needed",
        "Thanks, the new kit arrives on 3 April.",
        "Morning coaching runs 9-11 on Saturdays.",
    ]


def test_a_lead_in_leads_its_list_across_a_blank_line_and_fields_name_their_ticket() -> None:
    ticket = (
        "Ticket #57002\nStatus: Solved\nPriority: Normal\n\nYes, the email is genuine. From 1 "
        "February 2024 our prices change:\n\n  - Starter: £12 -> £14 per month\n\n"
        "  - Pro: £29 -> £35 per month\n\nDecision: keep the annual discount\n"
    )
    assert statements(ticket) == [
        "Ticket #57002: Status: Solved",
        "Ticket #57002: Priority: Normal",
        "Ticket #57002: Yes, the email is genuine.",  # names nothing: read with the title
        "From 1 February 2024 our prices change:",
        "From 1 February 2024 our prices change: Starter: £12 -> £14 per month",
        "From 1 February 2024 our prices change: Pro: £29 -> £35 per month",
        "Ticket #57002: Decision: keep the annual discount",
    ]


def test_whatsapp_lines_are_messages_and_placeholders_or_reactions_are_not() -> None:
    export = (
        "08/11/2023, 18:02 - Liz Barton: The share offer is extended to 31 January 2024\n"
        "08/11/2023, 18:05 - Owen Pryce: 👍\n"
        "[08/11/2023, 18:06:10] Rafiq Ahmed: <Media omitted>\n"
        "08/11/2023, 18:07 - Tom Nowak: +1\n"
        "08/11/2023, 19:23 - Gwen Harker: This message was deleted\n"
        "[08/11/2023, 19:25:01] Gwen Harker: Fold Farm planning was approved\n"
    )
    assert statements(export) == [
        "Liz Barton: The share offer is extended to 31 January 2024",
        "Gwen Harker: Fold Farm planning was approved",
    ]
    assert statements("Status: ✅") == ["Status: ✅"]  # a field's mark is its value


def test_a_threads_posts_are_stated_on_their_own_dates_by_their_authors() -> None:
    thread = (
        "Share offer questions\n\n---\n**pete_on_moss_lane** · 2 Oct 2023, 08:41\n\n"
        "A couple of questions:\n- Is £250 really the minimum?\n\n---\n"
        "**Gwen Harker (Chair)** · 3 Oct 2023, 09:30\n\n"
        "On 2 Oct 2023, at 08:41, pete_on_moss_lane wrote:\n> Is £250 really the minimum?\n\n"
        "Yes, £250 is the minimum for this offer.\n\nGwen\n\nSent from my iPad\n"
    )
    assert split_into_propositions(thread, "2023-10-04") == [
        {
            "text": "A couple of questions: Is £250 really the minimum?",
            "date": "2023-10-02",
            "about": "Share offer questions",
        },
        {
            "text": "Gwen Harker (Chair): Yes, £250 is the minimum for this offer.",
            "date": "2023-10-03",
            "about": "Share offer questions",
        },
    ]  # Gwen's quote repeats pete's post: said once


def test_struck_through_text_is_no_longer_so() -> None:
    page = "## Opening hours\n\n- Saturday: ~~9am-1pm~~ closed\n- Price: <del>£45</del> £50\n"
    assert statements(page) == ["Opening hours: Saturday: closed", "Opening hours: Price: £50"]


def test_a_page_that_shows_no_message_keeps_what_looks_like_greetings_and_names() -> None:
    page = (
        "Hello Fresh, the meal-kit company, raised its prices.\n\nBest Overall\nDyson V15\n\n"
        "The server was patched overnight.\n\nStatus: Resolved\nOwner: Dev Kapoor\n\n"
        "Thank you\nNuffield Foundation\n\nWinners announced tonight.\n\nSarah Jones\n"
    )
    said = " ".join(statements(page))
    for kept in ("Hello Fresh", "Dyson V15", "Status: Resolved", "Dev Kapoor", "Nuffield", "Sarah"):
        assert kept in said
    chat = "[09:14] Priya: The launch is moved to Friday :(\n[09:15] Ben: 👍\n"
    assert statements(chat) == ["Priya: The launch is moved to Friday :("]


def test_the_llm_is_told_when_what_follows_was_stated() -> None:
    notes = (
        "# Widget\n\n## [2.4.0] - 2023-08-02\n- Recurring invoices\n\n## Roadmap\n- Offline mode\n"
    )
    assert chunks(notes, date="2023-09-01") == [
        "# Stated on 2023-08-02:\nWidget › [2.4.0] - 2023-08-02: Recurring invoices\n"
        "# Stated on 2023-09-01:\nWidget › Roadmap: Offline mode"
    ]
    later = (
        "Noted.\n\n-----Original Message-----\nFrom: Ben\nSent: 4 March 2031 09:12\n\nIt closes.\n"
    )
    assert "Stated on" not in chunks(later, date="2025-03-05")[0]  # never after the document


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab ;:›\u203a|1.(")), max_size=80))
def test_any_statement_has_a_slot_or_none_without_error(text: str) -> None:
    # the offline classifier asks every candidate pair: no text may raise
    one, other = make_proposition(f"x{text}", "2024-01-01"), make_proposition("a: b", "2024-01-01")
    assert apart(one, other) in (True, False)
    assert slot(text) is None or isinstance(slot(text), str)


def test_a_statement_carries_the_headings_it_sits_under_that_it_does_not_say() -> None:
    page = (
        "# Riverside Dental\n\n## Fees 2025\n\n- Hygienist: £62\n\n"
        "Dr Amir Shah joins the practice in March.\n"
    )
    assert split_into_propositions(page, "2025-01-10") == [
        # a list item is led by its headings: nothing left to say
        {"text": "Riverside Dental › Fees 2025: Hygienist: £62", "date": "2025-01-10"},
        {
            "text": "Dr Amir Shah joins the practice in March.",
            "date": "2025-01-10",
            "about": "Riverside Dental › Fees 2025",
        },
    ]
    mail = (
        "From: Ann Lee <ann@riverside.example>\nTo: Ben\nDate: 4 Mar 2025\n"
        "Subject: Re: Change to Thursday clinic\n\nIt will now start at 2pm.\n\n"
        "Dr Shah takes the first appointment.\n"
    )
    assert split_into_propositions(mail, "2025-03-04") == [
        # a sentence that does not stand alone is led by the subject: it says it already
        {"text": "Change to Thursday clinic: It will now start at 2pm.", "date": "2025-03-04"},
        {
            "text": "Dr Shah takes the first appointment.",
            "date": "2025-03-04",
            "about": "Change to Thursday clinic",
        },
    ]


def test_what_a_statement_is_about_is_whole_headings_within_the_limit() -> None:
    long = "Quarterly report on " + "the estates " * 19  # 248 characters: still a heading
    page = f"# A {long}\n\n## B {long}\n\n### C {long}\n\nDr Amir Shah joins in March.\n"
    (found,) = split_into_propositions(page, "2025-01-10")
    # the title comes first; a heading that would not fit is left out whole, never cut
    assert found["about"] == f"A {long}".strip()
    assert len(f"A {long} › B {long}") > MAX_ABOUT
    # control characters and runs of spaces in a heading do not reach the proposition
    (found,) = split_into_propositions(
        "# Fees\x07  2025\n\nDr Amir Shah joins in March.\n", "2025-01-10"
    )
    assert found["about"] == "Fees 2025"
    make_proposition(found["text"], found["date"], about=found["about"])  # valid as stored


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab #\x0b\t\n=-:›" + "\u00a0")), max_size=2000))
def test_every_statement_read_offline_is_a_valid_proposition(text: str) -> None:
    for i, found in enumerate(split_into_propositions(text, "2025-01-10")):
        prop = make_proposition(
            found["text"], found["date"], None, None, f"p[{i}]", found.get("about")
        )
        assert prop.about is None or prop.about not in prop.text


def test_code_link_definitions_and_company_footers_are_no_statements() -> None:
    readme = (
        "# tidewright\n\n## Install\n\n```bash\npip install tidewright\n```\n\n"
        "Python 3.10 or newer is needed.\n\n[1.4.1]: https://example.org/compare/v1.4.0...v1.4.1\n"
        "\n---\n© 2024 Tidewright Ltd · Registered in England No. 04418825 · Privacy\n"
    )
    assert statements(readme) == ["tidewright › Install: Python 3.10 or newer is needed."]
    # a fence never closed fences nothing; a line of tildes under a title is no fence
    assert statements("```\nThe hall opens at 9.\n") == ["The hall opens at 9."]
    poster = "SWIM SCHOOL\n~~~~~~~~~~~~~~~~~~~~\n\nNo lessons on 16 December.\n"
    assert statements(poster) == ["No lessons on 16 December."]
    # a sentence that names a registration number's kind is no footer
    faq = "Yes, 30% off Pro. Email us with your charity registration number.\n"
    assert statements(faq) == ["Yes, 30% off Pro. Email us with your charity registration number."]


def test_a_mailing_lists_headers_and_footer_are_no_statements() -> None:
    post = (
        "From: Jakob Lindqvist <jakob@example.org>\nTo: dev@lists.example.org\n"
        "Date: Mon, 21 Aug 2023 09:12:00 +0000\nSubject: [dev] Release manager handover\n"
        "Message-ID: <CAJx3k9@mail.example.org>\nIn-Reply-To: <CAJx3k8@mail.example.org>\n"
        "List-Id: dev <dev.lists.example.org>\nMIME-Version: 1.0\n\n"
        "Mei Takahashi takes over as release manager on 1 September.\n\n"
        "_______________________________________________\n"
        "dev mailing list\ndev@lists.example.org\nhttps://lists.example.org/mailman/listinfo/dev\n"
    )
    assert statements(post) == ["Mei Takahashi takes over as release manager on 1 September."]


def test_a_message_in_the_first_person_is_led_by_its_author() -> None:
    mail = (
        'From: "Ridley, Tom" <tom@aldermoor.example>\nTo: Ellie Marsh\nDate: 3 Mar 2025\n'
        "Subject: Your wedding\n\nHi Ellie,\n\nI'll be your coordinator from now on.\n\n"
        "The Barn seats 140 for dinner.\n\nTom\n"
    )
    assert statements(mail) == [
        "Tom Ridley: I'll be your coordinator from now on.",
        "The Barn seats 140 for dinner.",
    ]
    # an address alone names no one; a page has no author
    unnamed = mail.replace('"Ridley, Tom" <tom@aldermoor.example>', "events@aldermoor.example")
    assert statements(unnamed)[0] == "Your wedding: I'll be your coordinator from now on."
    assert statements("I'll be your coordinator from now on.\n") == [
        "I'll be your coordinator from now on."
    ]


def test_facts_that_look_like_footers_code_or_link_definitions_stay() -> None:
    """A review's cases: what the footer, fence and link-definition rules must keep."""
    facts = {
        "Acme update\n\nAcme Ltd moved to Leeds in March. It is registered in England.\n": (
            "Acme Ltd moved to Leeds in March. It is registered in England."
        ),
        "Gallery news\n\nAll images © Getty. The show opens on 3 May.\n": "All images © Getty.",
        "Acme Ltd (company no. 04418825) moved to Leeds.\n": "Acme Ltd (company no. 04418825)",
        "Fees\n\nCharity number: 1098765\n": "Charity number: 1098765",
        "Results\n\n[^1]: The 2024 figure excludes the Leeds bakery.\n": "the Leeds bakery",
        "Board minutes\n\n[Decision]: The Leeds office closes on 30 June.\n": "office closes",
        "Fleet\n\n| Vehicle | Registration no. |\n|---|---|\n| Van | AB12 CDE |\n": "AB12 CDE",
        "Club handbook\n\nFees\n~~~~\nAdult membership costs £40 a year.\n": "£40 a year",
        '# Orrin API\n\n```yaml title="config.yml"\nport: 8080\n```\n\n'
        "The Orrin API listens on port 8080 by default.\n\n```bash\norrin serve\n```\n": (
            "listens on port 8080"
        ),
    }
    for page, fact in facts.items():
        found = statements(page)
        assert any(fact in s for s in found), (page, found)
    # a ~~~ fence does not close a ``` block
    assert statements("Run:\n```\nls\n~~~\ncd\n```\n\nThe hall opens at 9.\n") == [
        "Run:",
        "The hall opens at 9.",
    ]


def test_a_messages_body_keeps_lines_that_look_like_headers() -> None:
    doc = (
        "From: Dr Lee <lee@clinic.example>\nTo: Sam\nDate: 3 Mar 2025\nSubject: Your results\n\n"
        "X-ray: no fracture, the bone is healing well.\n\nList-price: £120 for the brace.\n"
    )
    assert statements(doc) == [
        "X-ray: no fracture, the bone is healing well.",
        "List-price: £120 for the brace.",
    ]
    page = "Content-Type: application/json\nX-Api-Key: the key from your dashboard\n"
    assert len(statements(page)) == 2  # a page, not a message
    rule = "_" * 30
    newsletter = (
        "From: Club <club@example.org>\nTo: Members\nSubject: News\n\nThe AGM is on 3 April.\n\n"
        f"{rule}\n\nSubs rise to £40 from May.\n\n{rule}\n\nThe bar now opens at 6pm.\n"
    )
    assert len(statements(newsletter)) == 3  # a rule between parts, not a list's footer


def test_a_second_reviews_cases_read_as_a_person_would() -> None:
    # a registration or a copyright inside a sentence is a fact, not a footer
    for fact in (
        "Company No. 04418825 changed its name to Acme Holdings Ltd on 3 March 2024.",
        "The audit covers (a) 2022, (b) 2023 and (c) 2024 accounts.",
        "The Corn Exchange reopened on 3 March (photo: © 2024 Leeds Live).",
        "Copyright 2019 belongs to the estate, not the publisher.",
    ):
        assert statements(fact) == [fact]
    for footer in ("Copyright © 2024 Acme Ltd. All rights reserved.", "VAT No. GB 318 4472 09."):
        assert statements(footer) == []
    # a bare ``` fence under a heading is code; "Fees" over "~~~~" is a heading
    readme = "# Orrin\n\n## Example\n```\norrin serve --port 9090\n```\n\nIt listens on 8080.\n"
    assert statements(readme) == ["Orrin › Example: It listens on 8080."]
    # a message's header block: after a blank line, with headers graphmem does not name, folded
    mail = (
        "\nFrom: Ann Lee <ann@example.org>\nTo: Ben\nUser-Agent: Mutt\nSubject: Release\n"
        "References: <a1@example.org>\n <a2@example.org>\nX-Mailer: Thunderbird 115\n\n"
        "The 2.4 release ships on Monday.\n"
    )
    assert statements(mail) == ["The 2.4 release ships on Monday."]
    # an unsubscribe line closing a newsletter is no mailing list's footer above a fact
    news = (
        "From: Club <club@example.org>\nTo: Members\nSubject: News\n\nThe AGM is on 3 April.\n\n"
        f"{'_' * 30}\nSubs rise to £40 from May.\n\nTo unsubscribe, reply with STOP.\n"
    )
    assert "Subs rise to £40 from May." in statements(news)


def test_who_wrote_a_message_and_its_parts() -> None:
    assert [
        mail.sender([header, "To: Ann", "", "Hello."])
        for header in (
            "From: Tom Ridley, Acme Roofing <tom@acme.example>",
            'From: "Ridley, Tom" <tom@acme.example>',
            "From: Support Team <help@acme.example>",
            "From: BBC News <news@bbc.example>",
            "From: tom@acme.example",
        )
    ] == ["Tom Ridley", "Tom Ridley", None, None, None]
    assert mail.sender(["To: Ann", "", "From: The Facilities Team", "Hello."]) is None
    # a ticket mailed by its desk: each reply keeps its own author, not the desk's
    ticket = (
        "From: Tom Ridley <tom@acme.example>\nTo: Anna\nSubject: [Ticket #5521] Server down\n\n"
        "Leon Marsh - 6 Mar 2023, 10:17\nI've restarted the server and it is back up.\n"
    )
    assert statements(ticket) == ["Leon Marsh: I've restarted the server and it is back up."]
    # a chat message's second line is its own, not the next speaker's
    chat = (
        "08/11/2023, 18:02 - Liz Barton: Quick update\nThe hall is booked for Saturday.\n"
        "08/11/2023, 18:05 - Tom Bright: The hall moved us to Sunday.\n"
    )
    booked, moved = offline_statements(chat, "2023-11-08")
    assert booked.part != moved.part and "Sunday" in moved.text
