"""The home page's server side, in process (issue #51): the variant picker's catalogue
(families, display names, rules, sides, book), the quick pairing of the time-control grid
(accept another person's matching seek, else open one) and random-colour seeks shown as
"random" until they are accepted."""

from __future__ import annotations

from collections import Counter

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from ferz.web import boards  # noqa: E402
from tests.web.test_web_people import Person, app_for, sockets, state  # noqa: E402

pytestmark = pytest.mark.timeout(60)

CLOCK = {"initial_ms": 180_000, "increment_ms": 2000}


@pytest.fixture()
def client(tmp_path):
    """Players may be away 30 s: a seek stays listed without its page open."""
    with TestClient(app_for(tmp_path, abandon_s=30)) as c:
        c.cookies.clear()
        yield c


def test_the_catalogue_groups_every_variant_by_family_with_names_sides_and_book(client):
    data = client.get("/api/variants").json()
    assert [g["key"] for g in data["groups"]] == [
        "chess",
        "variants",
        "shogi",
        "xiangqi",
        "regional",
        "fairy",
    ]
    by_name = {v["name"]: v for v in data["variants"]}
    # every playable variant once (names that another test registered as aliases of a
    # built-in, such as `normal`, are that variant)
    assert sorted(by_name) == sorted(
        {boards.variant_card(n)["name"] for n in boards.variant_names()}
    )
    assert len(by_name) == len(data["variants"])
    assert data["variants"][0]["name"] == "chess"
    groups = [v["group"] for v in data["variants"]]
    assert groups == sorted(groups, key=[g["key"] for g in data["groups"]].index)  # contiguous
    assert Counter(groups)["shogi"] >= 7 and Counter(groups)["xiangqi"] >= 5
    assert by_name["ai-wok"]["title"] == "Ai-wok" and by_name["ai-wok"]["group"] == "regional"
    assert by_name["shouse"]["title"].startswith("S-House")
    assert by_name["crazyhouse"]["rules"].startswith("Captured pieces change sides")
    for v in data["variants"]:
        assert v["title"] and v["rules"] and v["fen"], v["name"]
        assert v["title"] != v["name"] or v["name"] in ("chess",), v["name"]
    assert by_name["shogi"]["sides"] == ["sente", "gote"]
    assert by_name["minishogi"]["sides"] == ["sente", "gote"]
    assert by_name["xiangqi"]["sides"] == ["red", "black"]
    assert by_name["janggi"]["sides"] == ["red", "black"]
    assert by_name["chess"]["sides"] == ["white", "black"]
    assert [n for n, v in by_name.items() if v["book"]] == ["chess"]
    assert by_name["shogi"]["look"]["family"] == "shogi"
    assert by_name["shogi"]["files"] == 9 and by_name["shogi"]["pockets"]


def test_a_quick_pairing_opens_a_random_colour_seek_then_a_second_person_takes_it(client):
    a, b, c = Person(client), Person(client), Person(client)
    made = a.post("/api/seeks/quick", {"variant": "chess", "clock": CLOCK})
    assert made.status_code == 201, made.text
    seek = made.json()
    assert seek["settings"]["opponent"] == "seek" and seek["settings"]["random_color"] is True
    listed = b.get("/api/seeks").json()["seeks"]
    assert [(s["id"], s["color"]) for s in listed] == [(seek["id"], "random")]
    # a different clock or variant does not match: another seek
    other = c.post("/api/seeks/quick", {"variant": "chess", "clock": {**CLOCK, "increment_ms": 0}})
    assert other.status_code == 201 and other.json()["id"] != seek["id"]
    # the same person clicking again does not pair with themselves
    again = a.post("/api/seeks/quick", {"variant": "chess", "clock": CLOCK})
    assert again.status_code == 201 and again.json()["id"] != seek["id"]
    a.delete(f"/api/seeks/{again.json()['id']}")
    paired = b.post("/api/seeks/quick", {"variant": "chess", "clock": CLOCK})
    assert paired.status_code == 200, paired.text
    game = paired.json()
    assert game["id"] == seek["id"] and len(game["you"]) == 1
    assert game["settings"]["random_color"] is False
    mine = a.get(f"/api/games/{seek['id']}").json()
    assert mine["you"] == [c for c in ("white", "black") if c not in game["you"]]
    assert mine["human"] == mine["you"][0]
    assert [s["id"] for s in c.get("/api/seeks").json()["seeks"]] == [other.json()["id"]]
    with a.socket(f"/ws/games/{seek['id']}") as ws:
        g = state(ws)
        assert not any(seat["open"] for seat in g["seats"].values())


def test_random_colours_are_drawn_when_the_seat_is_taken(client):
    drawn = Counter()
    for _ in range(24):
        a, b = Person(client), Person(client)
        seek = a.new_game(opponent="seek", color="random", clock=CLOCK)
        assert seek["settings"]["random_color"] is True
        assert b.post(f"/api/seeks/{seek['id']}/accept").status_code == 200
        drawn[a.get(f"/api/games/{seek['id']}").json()["you"][0]] += 1
    assert drawn["white"] and drawn["black"]  # 2 * 2**-24 to fail by chance
    a, b = Person(client), Person(client)
    fixed = a.new_game(opponent="friend", color="white", clock=CLOCK)
    assert fixed["settings"]["random_color"] is False
    with b.socket(f"/ws/games/{fixed['id']}") as ws:
        assert state(ws)["you"] == ["black"]


def test_a_quick_pairing_refuses_what_it_cannot_pair(client):
    a = Person(client)
    assert a.post("/api/seeks/quick", {"variant": "chess", "clock": None}).status_code == 400
    assert a.post("/api/seeks/quick", {"variant": "nosuch", "clock": CLOCK}).status_code == 400
    extra = {"variant": "chess", "clock": CLOCK, "x": 1}
    assert a.post("/api/seeks/quick", extra).status_code == 400
    rated = a.post("/api/seeks/quick", {"variant": "shogi", "clock": CLOCK, "rated": True})
    assert rated.status_code == 201 and rated.json()["settings"]["rated"] is True


def test_the_result_names_the_sides_as_the_variant_does(client):
    for variant, winner in (("shogi", "Gote"), ("xiangqi", "Black"), ("minixiangqi", "Black")):
        a, b = Person(client), Person(client)
        game = a.new_game(opponent="friend", color="white", variant=variant, clock=CLOCK)
        with sockets(a, b, game) as (wa, wb):
            wa.send_json({"type": "resign"})
            end = state(wb, lambda g: g["result"])
            assert end["outcome_text"] == f"{winner} won (resignation)", variant
    a, b = Person(client), Person(client)
    game = a.new_game(opponent="friend", color="black", variant="xiangqi", clock=CLOCK)
    with sockets(b, a, game) as (wb, wa):
        wa.send_json({"type": "resign"})
        assert state(wb, lambda g: g["result"])["outcome_text"] == "Red won (resignation)"
