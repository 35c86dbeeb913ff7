"""Names and accounts in ferz web (issue #51): a name chosen at the first visit (checked, unique
whatever its case) shown on the board, in the lobby, to spectators and in the PGN; "my games"
and a person's games; an optional account (scrypt password) that carries a player to another
browser; hostile input refused."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from ferz.web import people  # noqa: E402
from ferz.web.store import Store  # noqa: E402
from tests.web.test_web_people import Person, app_for, friend_game, state  # noqa: E402

pytestmark = pytest.mark.timeout(60)


@pytest.fixture()
def client(tmp_path):
    with TestClient(app_for(tmp_path)) as c:
        c.cookies.clear()
        yield c


def named(client: TestClient, name: str) -> Person:
    """A new browser whose person chose `name`."""
    person = Person(client)
    reply = person.post("/api/me/name", {"name": name})
    assert reply.status_code == 200, reply.text
    return person


def who(me: dict) -> dict:
    """/api/me without the ratings."""
    return {k: v for k, v in me.items() if k != "ratings"}


def listed(person: Person, query: str = "") -> list[dict]:
    reply = person.get(f"/api/games{query}")
    assert reply.status_code == 200, reply.text
    return reply.json()["games"]


# ---------------------------------------------------------------- names


def test_a_new_visitor_has_no_name_until_they_choose_one(client):
    ann = Person(client)
    assert who(ann.get("/api/me").json()) == {"name": None, "account": False, "logged_in": False}
    assert ann.post("/api/me/name", {"name": "Ann_1-x"}).json()["name"] == "Ann_1-x"
    assert ann.get("/api/me").json()["name"] == "Ann_1-x"
    assert ann.post("/api/me/name", {"name": "Annie"}).json()["name"] == "Annie"  # a change


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("a", "2 to 20"),
        ("x" * 21, "2 to 20"),
        ("no spaces", "2 to 20"),
        ("<b>", "2 to 20"),
        ("Ånne", "2 to 20"),
        ("ferz", "reserved"),
        ("FERZ_level_3", "reserved"),
        ("Anonymous", "reserved"),
        ("you", "reserved"),
    ],
)
def test_bad_names_are_refused_with_a_reason(client, name, words):
    reply = Person(client).post("/api/me/name", {"name": name})
    assert reply.status_code == 400 and words in reply.json()["error"]


def test_a_name_is_unique_whatever_its_case(client):
    named(client, "Carol")
    reply = Person(client).post("/api/me/name", {"name": "cAROL"})
    assert reply.status_code == 409 and "taken" in reply.json()["error"]


@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"{nope", 400),
        (b"[]", 400),
        (b'{"name": 7}', 400),
        (b'{"name": null}', 400),
        (b'{"name": "Bob", "admin": true}', 400),
        (b"{}", 400),
        (b'{"name": "' + b"x" * 5000 + b'"}', 413),
    ],
)
def test_hostile_bodies_are_refused(client, body, status):
    person = Person(client)
    for path in ("/api/me/name", "/api/account/login", "/api/account/register"):
        reply = client.post(path, content=body, headers=person.headers)
        assert reply.status_code == status, (path, reply.text)
        assert "error" in reply.json()


def test_names_on_the_board_for_spectators_in_the_lobby_and_in_the_pgn(client):
    ann, bob, eve = named(client, "Ann"), named(client, "Bob"), Person(client)
    seek = ann.new_game(opponent="seek", color="white", clock={"initial_ms": 300_000})
    assert [s["name"] for s in eve.get("/api/seeks").json()["seeks"]] == ["Ann"]
    accepted = bob.post(f"/api/seeks/{seek['id']}/accept").json()
    assert (accepted["white"], accepted["black"]) == ("Ann", "Bob")
    assert {c: accepted["seats"][c]["name"] for c in ("white", "black")} == {
        "white": "Ann",
        "black": "Bob",
    }
    with eve.socket(f"/ws/games/{seek['id']}") as we:  # a spectator sees the names
        seen = state(we)
        assert seen["you"] == [] and (seen["white"], seen["black"]) == ("Ann", "Bob")
    text = eve.get(f"/api/games/{seek['id']}/pgn").text
    assert '[White "Ann"]' in text and '[Black "Bob"]' in text
    bot = ann.new_game(elo=1514, movetime_ms=50, color="black")
    assert (bot["white"], bot["black"]) == ("ferz level 3", "Ann")
    text = ann.get(f"/api/games/{bot['id']}/pgn").text
    assert '[White "ferz level 3"]' in text and '[Black "Ann"]' in text and "You" not in text
    full = Person(client).new_game(movetime_ms=50)
    assert (full["white"], full["black"]) == ("Anonymous", "ferz")


# ---------------------------------------------------------------- my games


def test_my_games_by_default_and_others_games_by_name(client):
    ann, bob = named(client, "Ann"), named(client, "Bob")
    mine = ann.new_game(movetime_ms=50)
    theirs = bob.new_game(movetime_ms=50)
    both = friend_game(ann)
    with bob.socket(f"/ws/games/{both['id']}") as wb:
        state(wb)
    imported = ann.post("/api/import", {"text": "1. e4 e5 *"}).json()["id"]
    assert {g["id"] for g in listed(ann)} == {mine["id"], both["id"], imported}
    assert {g["id"] for g in listed(bob)} == {theirs["id"], both["id"]}
    assert all(g["mine"] for g in listed(ann) + listed(bob))
    assert listed(Person(client)) == []  # a new visitor has no games yet
    everyone = listed(bob, "?who=all")
    assert {g["id"] for g in everyone} == {mine["id"], theirs["id"], both["id"], imported}
    assert {g["id"]: g["mine"] for g in everyone} == {
        mine["id"]: False,
        theirs["id"]: True,
        both["id"]: True,
        imported: False,
    }
    by_name = listed(bob, "?player=ann")  # another person's games, by name (not imports)
    assert {g["id"] for g in by_name} == {mine["id"], both["id"]}
    assert {(g["white"], g["black"]) for g in by_name} == {("Ann", "ferz"), ("Ann", "Bob")}
    assert bob.get("/api/games?player=nobody").status_code == 404
    assert bob.get("/api/games?who=everyone").status_code == 400
    assert bob.delete(f"/api/games/{mine['id']}").status_code == 403
    assert bob.delete(f"/api/games/{imported}").status_code == 403  # Ann's import
    assert ann.delete(f"/api/games/{imported}").status_code == 204


# ---------------------------------------------------------------- accounts


def test_an_account_carries_name_and_games_to_another_browser(client):
    ann = named(client, "Ann")
    game = ann.new_game(movetime_ms=50)
    reply = ann.post("/api/account/register", {"password": "correct horse"})
    assert reply.status_code == 201 and reply.json()["account"] is True
    laptop = Person(client)  # another browser: its own, nameless player
    assert laptop.get("/api/me").json()["name"] is None and listed(laptop) == []
    wrong = laptop.post("/api/account/login", {"name": "ann", "password": "wrong horse"})
    assert wrong.status_code == 401 and wrong.json()["error"] == "wrong name or password"
    nobody = laptop.post("/api/account/login", {"name": "Zed", "password": "correct horse"})
    assert nobody.status_code == 401 and nobody.json()["error"] == "wrong name or password"
    logged = laptop.post("/api/account/login", {"name": "ANN", "password": "correct horse"})
    assert logged.status_code == 200, logged.text
    assert who(logged.json()) == {"name": "Ann", "account": True, "logged_in": True}
    assert [g["id"] for g in listed(laptop)] == [game["id"]]
    seen = laptop.get(f"/api/games/{game['id']}").json()
    assert seen["you"] == ["white"]  # the laptop holds Ann's seat: it may play on
    with laptop.socket(f"/ws/games/{game['id']}") as ws:
        assert state(ws)["you"] == ["white"]
    out = who(laptop.post("/api/account/logout").json())
    assert out == {"name": None, "account": False, "logged_in": False}
    assert listed(laptop) == []


def test_an_account_is_kept_across_restarts_and_its_password_hashed(tmp_path):
    with TestClient(app_for(tmp_path)) as client:
        client.cookies.clear()
        ann = named(client, "Ann")
        assert ann.post("/api/account/register", {"password": "s3cret-pass"}).status_code == 201
        laptop = Person(client)
        logged = laptop.post("/api/account/login", {"name": "Ann", "password": "s3cret-pass"})
        assert logged.status_code == 200
    stored = sqlite3.connect(tmp_path / "games.sqlite3").execute("SELECT password FROM players")
    hashed = stored.fetchone()[0]
    assert hashed.startswith("scrypt$") and "s3cret" not in hashed
    assert people.verify_password("s3cret-pass", hashed)
    assert not people.verify_password("s3cret-pasS", hashed)
    assert hashed != people.hash_password("s3cret-pass")  # a fresh salt each time
    with TestClient(app_for(tmp_path)) as client:
        client.cookies.clear()
        again = Person(client, laptop.token)
        assert who(again.get("/api/me").json()) == {
            "name": "Ann",
            "account": True,
            "logged_in": True,
        }


def test_registration_needs_a_name_a_fair_password_and_happens_once(client):
    ann = Person(client)
    assert "name first" in ann.post("/api/account/register", {"password": "12345678"}).text
    short = ann.post("/api/account/register", {"name": "Ann", "password": "1234567"})
    assert short.status_code == 400 and "8 to 200" in short.json()["error"]
    made = ann.post("/api/account/register", {"name": "Ann", "password": "12345678"})
    assert made.status_code == 201 and made.json()["name"] == "Ann"
    again = ann.post("/api/account/register", {"password": "abcdefgh"})
    assert again.status_code == 409
    taken = Person(client).post("/api/account/register", {"name": "ann", "password": "12345678"})
    assert taken.status_code == 409


def test_failed_logins_are_throttled(client):
    named(client, "Ann").post("/api/account/register", {"password": "correct horse"})
    thief = Person(client)
    for _ in range(people.LOGIN_TRIES):
        reply = thief.post("/api/account/login", {"name": "Ann", "password": "guess1234"})
        assert reply.status_code == 401
    reply = thief.post("/api/account/login", {"name": "Ann", "password": "correct horse"})
    assert reply.status_code == 429 and "too many failed logins" in reply.json()["error"]
    # the name is throttled for every browser from the guesser's address ...
    other = Person(client).post("/api/account/login", {"name": "ann", "password": "x" * 8})
    assert other.status_code == 429
    # ... but not for Ann, who logs in from her own address
    elsewhere = TestClient(client.app, client=("203.0.113.7", 50000))
    ann = Person(elsewhere).post("/api/account/login", {"name": "Ann", "password": "correct horse"})
    assert ann.status_code == 200 and ann.json()["name"] == "Ann"


def test_the_login_throttle_counts_a_name_per_address_and_each_address_wider(tmp_path):
    store = Store(tmp_path / "people.sqlite3")
    try:
        who = people.People(store)
        for name in ("Ann", "Bob"):
            who.set_name(name.lower() + "-id", name)
            who.register(name.lower() + "-id", "correct horse")

        def login(name: str, password: str, address: str, now: float) -> int:
            try:
                who.login("browser", name, password, now=now, address=address)
            except people.PeopleError as refused:
                return refused.status
            return 200

        # ten failures on Ann's name from one address stop that address on that name only
        for _ in range(people.LOGIN_TRIES):
            assert login("Ann", "guess1234", "10.0.0.1", 0.0) == 401
        assert login("ann", "correct horse", "10.0.0.1", 1.0) == 429
        assert login("Bob", "correct horse", "10.0.0.1", 1.0) == 200
        assert login("Ann", "correct horse", "10.0.0.2", 1.0) == 200
        # one address trying many names is stopped by the wider limit, on every name
        for n in range(people.LOGIN_ADDRESS_TRIES):
            assert login(f"name{n}", "guess1234", "10.0.0.3", 2.0) == 401
        assert login("Bob", "correct horse", "10.0.0.3", 3.0) == 429
        assert login("Bob", "correct horse", "10.0.0.4", 3.0) == 200
        # the window passes: the address may try again
        later = 2.0 + people.LOGIN_WINDOW_S + 1
        assert login("Bob", "correct horse", "10.0.0.3", later) == 200
        assert login("Ann", "correct horse", "10.0.0.1", later) == 200
    finally:
        store.close()
