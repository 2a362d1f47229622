"""A small fictional corpus for `graphmem demo`: invented names, truths that change over time."""

from __future__ import annotations

DOCUMENTS: tuple[dict[str, str], ...] = (
    {
        "date": "2018-03-02",
        "source": "orrin-gazette",
        "text": "Mara Velsh was appointed chief executive of Quillmere Foundry. "
        "Quillmere Foundry employs 1,200 people in the town of Brackwater.",
    },
    {
        "date": "2019-06-14",
        "source": "orrin-gazette",
        "text": "Quillmere Foundry opened a second smelting hall in Brackwater. "
        "Quillmere Foundry employs 1,650 people in the town of Brackwater.",
    },
    {
        "date": "2020-01-20",
        "source": "brackwater-herald",
        "text": "A rumour claims that Quillmere Foundry will close its Brackwater site.",
    },
    {
        "date": "2020-02-03",
        "source": "orrin-gazette",
        "text": "Quillmere Foundry denied that it will close its Brackwater site.",
    },
    {
        "date": "2021-09-01",
        "source": "orrin-gazette",
        "text": "Tomas Rilke replaced Mara Velsh as chief executive of Quillmere Foundry.",
    },
    {
        "date": "2022-11-30",
        "source": "brackwater-herald",
        "text": "Quillmere Foundry employs 2,100 people in the town of Brackwater.",
    },
    {
        "date": "2023-05-12",
        "source": "orrin-gazette",
        "text": "Tomas Rilke, chief executive of Quillmere Foundry, said the Brackwater site will "
        "stay open.",
    },
)

QUESTION = "Who runs Quillmere Foundry, and how many people does it employ in Brackwater?"
AS_OF = "2021-12-31"
