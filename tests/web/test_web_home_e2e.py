"""The home page in a real browser (issue #51): a new visitor reaches a running game against
ferz in one click from `/` and two people meet through the time-control grid in one click
each (clicks counted); the variant picker groups the variants by family with their names,
rules and pictures, and the options follow the variant (red/black for xiangqi, sente/gote
for shogi, the book for chess only); shogi boards carry shogi coordinates; a loss is shown
red, the material difference beside the names, copy buttons say "Copied", a banner while the
server is away; the phone layout. Screenshots go to test-artifacts/web (copied by hand to
docs/screenshots)."""

from __future__ import annotations

import time

import pytest

from tests.web.conftest import chromium_path
from tests.web.test_web_people_e2e import ARTIFACTS, banner, move
from tests.web.webserver import running_server

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

chromium_path()  # skip the module (or fail in CI) without chromium or Playwright

GROUPS = ["chess", "variants", "shogi", "xiangqi", "regional", "fairy"]


class Visitor:
    """A person in a browser context of their own who counts their clicks."""

    def __init__(self, browser, width: int = 1280, height: int = 860) -> None:
        self.context = browser.new_context(
            viewport={"width": width, "height": height}, bypass_csp=True
        )
        self.context.grant_permissions(["clipboard-read", "clipboard-write"])
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", lambda d: d.accept())
        self.clicks = 0

    def click(self, selector: str) -> None:
        self.clicks += 1
        self.page.click(selector)

    def game(self, server: str) -> dict:
        """The game this page shows, as the server answers this person."""
        game_id = self.page.evaluate("location.hash").split("/")[-1]
        return self.page.request.get(f"{server}api/games/{game_id}").json()

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        time.sleep(0.4)  # animations
        self.page.screenshot(path=str(ARTIFACTS / name))


@pytest.fixture()
def visitors(browser):
    made: list[Visitor] = []

    def visitor(**kw) -> Visitor:
        made.append(Visitor(browser, **kw))
        return made[-1]

    yield visitor
    for v in made:
        v.context.close()
        assert v.errors == []


def home(v: Visitor, server: str) -> None:
    v.page.goto(server)
    v.page.wait_for_selector("[data-action=play-ferz]")
    v.page.wait_for_selector(".variant-choice .mini-board piece")  # the catalogue is in


def test_a_new_visitor_plays_ferz_in_one_click_at_a_level_not_full_strength(visitors, server):
    v = visitors()
    home(v, server)
    assert v.page.locator(".tiles .tile").all_inner_texts() == [
        f"{c}\n{s}"
        for c, s in [
            ("1+0", "Bullet"),
            ("3+0", "Blitz"),
            ("3+2", "Blitz"),
            ("5+3", "Blitz"),
            ("10+0", "Rapid"),
            ("10+5", "Rapid"),
            ("15+10", "Rapid"),
            ("30+0", "Classical"),
        ]
    ]
    v.shot("home.png")
    v.click("[data-action=play-ferz]")
    v.page.wait_for_function("location.hash.startsWith('#/game/')")
    v.page.wait_for_selector(".game-view cg-board piece")
    game = v.game(server)
    assert v.clicks <= 2
    assert game["result"] is None and len(game["you"]) == 1
    ferz = game["seats"]["black" if game["you"] == ["white"] else "white"]
    assert ferz["kind"] == "engine" and ferz["elo"] == 1514  # ferz level 3, not full strength
    assert game["clock"] is not None and game["settings"]["book"] is True
    if game["you"] == ["black"]:  # ferz opens: the game runs
        v.page.wait_for_selector(".move[data-ply='1']", timeout=20_000)
    else:
        move(v.page, "e2", "e4", 1)
        v.page.wait_for_selector(".move[data-ply='2']", timeout=20_000)
    assert v.page.locator(".game-over").is_hidden()


def test_the_grid_pairs_with_ferz_at_its_clock_when_asked(visitors, server):
    """The grid's switch makes its tiles start a game against ferz at that clock (the level
    and side of the panel beside): two clicks from `/`, one once the choice is kept."""
    v = visitors()
    home(v, server)
    assert v.page.locator("[data-against=person]").get_attribute("aria-checked") == "true"
    v.click("[data-against=ferz]")
    assert v.page.locator(".quick-head h1").inner_text() == "Play ferz at a clock"
    v.click("[data-action=quick][data-clock='3+2']")
    v.page.wait_for_function("location.hash.startsWith('#/game/')")
    v.page.wait_for_selector(".game-view cg-board piece")
    game = v.game(server)
    first = v.page.evaluate("location.hash")
    assert v.clicks == 2 and game["result"] is None and len(game["you"]) == 1
    ferz = game["seats"]["black" if game["you"] == ["white"] else "white"]
    assert ferz["kind"] == "engine" and ferz["elo"] == 1514
    assert game["settings"]["initial_ms"] == 180_000 and game["clock"]["increment_ms"] == 2000
    home(v, server)  # the choice is kept: the next game is one click
    assert v.page.locator("[data-against=ferz]").get_attribute("aria-checked") == "true"
    v.click("[data-action=quick][data-clock='1+0']")
    v.page.wait_for_function(
        "(first) => /^#[/]game[/]/.test(location.hash) && location.hash !== first", arg=first
    )
    assert v.game(server)["settings"]["initial_ms"] == 60_000 and v.clicks == 3


def test_two_people_meet_through_the_grid_with_one_click_each(visitors, server):
    alice, bob = visitors(), visitors()
    home(alice, server)
    alice.click("[data-action=quick][data-clock='3+2']")
    alice.page.wait_for_function("location.hash.startsWith('#/game/')")
    alice.page.wait_for_selector(".offer.seek")
    assert "colours: random" in alice.page.locator(".offer.seek").inner_text()
    bob.page.goto(server + "#/lobby")  # the seek is listed with its colour still to be drawn
    bob.page.wait_for_selector("tr[data-seek] .seek-color")
    assert bob.page.locator("tr[data-seek] .seek-color").inner_text() == "random"
    assert bob.page.locator("tr[data-seek] td.variant").inner_text() == "Chess"
    bob.page.select_option(".seek-form select[name=variant]", "xiangqi")  # sides as named there
    colors = bob.page.locator(".seek-form select[name=color] option").all_inner_texts()
    assert colors == ["random", "red", "black"]
    home(bob, server)  # the home page lists it too
    seek = alice.page.evaluate("location.hash").split("/")[-1]
    bob.page.wait_for_function(
        "(id) => (document.querySelector(`.home-seeks li[data-seek='${id}'] .seek-what`) || {})"
        ".textContent === '3+2 · Chess · casual · random'",
        arg=seek,
    )
    bob.click("[data-action=quick][data-clock='3+2']")
    bob.page.wait_for_function("location.hash.startsWith('#/game/')")
    bob.page.wait_for_selector(".game-view cg-board piece")
    assert alice.clicks <= 3 and bob.clicks <= 3
    assert bob.page.evaluate("location.hash") == alice.page.evaluate("location.hash")
    alice.page.wait_for_function("!document.querySelector('.offer.seek')")
    a, b = alice.game(server), bob.game(server)
    assert sorted(a["you"] + b["you"]) == ["black", "white"]
    assert a["clock"]["increment_ms"] == 2000 and a["result"] is None
    white, black = (alice, bob) if a["you"] == ["white"] else (bob, alice)
    move(white.page, "e2", "e4", 1)
    move(black.page, "e7", "e5", 2)
    white.page.wait_for_selector(".move[data-ply='2']")
    assert "orientation-black" in black.page.locator(".cg-board-el").get_attribute("class")


def test_the_variant_picker_groups_names_rules_pictures_and_fitting_options(visitors, server):
    v = visitors()
    home(v, server)
    page = v.page
    assert page.locator(".variant-choice .variant-title").inner_text() == "Chess"
    assert page.locator("select[name=color] option").all_inner_texts() == [
        "random",
        "white",
        "black",
    ]
    assert page.locator(".book-option").is_visible()
    v.click("[data-action=pick-variant]")
    page.wait_for_selector(".variant-picker .variant-option")
    groups = page.locator(".variant-group").evaluate_all("els => els.map(e => e.dataset.group)")
    assert groups == GROUPS
    heads = page.locator(".variant-group h2").all_inner_texts()
    assert heads == [
        "Chess",
        "Chess variants",
        "Shogi family",
        "Xiangqi family",
        "Regional",
        "Fairy",
    ]
    titles = page.locator(".variant-option .variant-title").all_inner_texts()
    assert "Ai-wok" in titles and "ai-wok" not in titles and "shouse" not in titles
    shogi = page.locator(".variant-group[data-group=shogi] .variant-title").all_inner_texts()
    assert shogi[0] == "Shogi" and "Minishogi" in shogi and "Kyoto shogi" in shogi
    xiangqi = page.locator(".variant-group[data-group=xiangqi] .variant-title").all_inner_texts()
    assert xiangqi[0] == "Xiangqi" and "Janggi" in xiangqi
    options = page.locator(".variant-option")
    assert options.count() == len(titles) >= 70
    # every card: a picture with pieces and a line of rules (read in one evaluation, not two
    # round trips a card)
    cards = page.evaluate(
        """() => [...document.querySelectorAll('.variant-option')].map((card) => [
             card.querySelectorAll('.mini-board piece').length,
             (card.querySelector('.variant-rules') || {}).innerText || ''])"""
    )
    assert len(cards) == len(titles)
    for n, (pieces, rules) in enumerate(cards):
        assert pieces > 0, titles[n]
        assert rules.strip(), titles[n]
    # the pictures use the variant's own pieces: xiangqi's discs, shogi's koma
    kinds = page.evaluate(
        """() => ['xiangqi', 'shogi'].map((n) => getComputedStyle(document.querySelector(
             `.variant-option[data-variant=${n}] .mini-board piece.k-piece.white`)
           ).backgroundImage)"""
    )
    assert all(k.startswith('url("data:image/svg+xml') for k in kinds)
    v.shot("variant-picker.png")
    page.locator(".variant-group[data-group=shogi]").scroll_into_view_if_needed()
    page.evaluate(
        "document.querySelector('.variant-group[data-group=shogi]').scrollIntoView();"
        "document.querySelector('.picker-overlay').scrollBy(0, -70)"
    )
    v.shot("variant-picker-families.png")
    v.click(".variant-option[data-variant=xiangqi]")
    page.wait_for_selector(".variant-picker", state="detached")
    assert page.locator(".variant-choice .variant-title").inner_text() == "Xiangqi"
    assert page.locator("select[name=color] option").all_inner_texts() == ["random", "red", "black"]
    assert page.locator(".book-option").is_hidden()  # ferz has a book for chess only
    v.click("[data-action=pick-variant]")
    v.click(".variant-option[data-variant=shogi]")
    sides = page.locator("select[name=color] option").all_inner_texts()
    assert sides == ["random", "sente", "gote"]
    # the choice is kept and starts the game: ferz in shogi, as sente
    page.select_option("select[name=color]", "white")
    v.click("[data-action=play-ferz]")
    page.wait_for_function("location.hash.startsWith('#/game/')")
    page.wait_for_selector(".game-view cg-board piece")
    game = v.game(server)
    assert game["variant"] == "shogi" and game["you"] == ["white"]
    assert game["settings"]["book"] is False
    assert v.clicks <= 6
    # the new-game form: the variants by family with their names, the sides named likewise
    page.goto(server + "#/new")
    page.wait_for_selector("form.new-game select[name=variant] optgroup", state="attached")
    labels = page.locator("select[name=variant] optgroup").evaluate_all(
        "els => els.map(e => e.label)"
    )
    assert labels == heads
    page.select_option("select[name=variant]", "xiangqi")
    assert page.locator(".side-name").all_inner_texts() == ["red", "black", "random"]
    assert page.locator("input[name=book]").is_hidden()


def coords(page, kind: str) -> list[str]:
    """A board's coordinates of one kind in screen order (left to right, top to bottom)."""
    return page.evaluate(
        """(kind) => [...document.querySelectorAll(`.game-view coords.${kind} coord`)]
             .map((c) => [c.getBoundingClientRect(), c.textContent])
             .sort((a, b) => (a[0].left - b[0].left) || (a[0].top - b[0].top))
             .map((x) => x[1])""",
        kind,
    )


def cell(page, name: str, files: int, ranks: int) -> tuple[float, float]:
    """Screen coordinates of a square's centre, White (Sente) at the bottom."""
    box = page.locator(".game-view cg-board").bounding_box()
    f, r = ord(name[0]) - 97, int(name[1:]) - 1
    w, h = box["width"] / files, box["height"] / ranks
    return box["x"] + (f + 0.5) * w, box["y"] + (ranks - 1 - r + 0.5) * h


def test_shogi_boards_read_files_9_to_1_and_ranks_a_to_i(visitors, server):
    v = visitors(width=1280, height=1000)
    game = v.page.request.post(
        f"{server}api/games",
        data={"variant": "shogi", "color": "white", "movetime_ms": 200},
    ).json()
    v.page.goto(f"{server}#/game/{game['id']}")
    v.page.wait_for_selector(".game-view cg-board piece")
    assert coords(v.page, "top") == list("987654321")
    ranks = v.page.evaluate(
        """() => [...document.querySelectorAll('.game-view coords.side coord')]
             .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)
             .map((c) => c.textContent)"""
    )
    assert ranks == list("abcdefghi")
    # outside the grid, where the koma cannot hide them: ranks on the right, files on top
    board = v.page.locator(".game-view cg-board").bounding_box()
    edges = v.page.evaluate(
        """() => {
          const r = (sel) => {
            const range = document.createRange();
            range.selectNodeContents(document.querySelector(sel));
            return range.getBoundingClientRect();
          };
          const rank = r('.game-view coords.side coord');
          return { rank, file: r('.game-view coords.top coord') };
        }"""
    )
    assert edges["rank"]["left"] >= board["x"] + board["width"] - 1
    assert edges["file"]["bottom"] <= board["y"] + 1
    # a move, written as the coordinates read: the pawn from 7g to 7f is P-7f
    for square in ("c3", "c4"):
        v.page.mouse.click(*cell(v.page, square, 9, 9))
    v.page.wait_for_selector(".move[data-ply='2']", timeout=20_000)
    assert v.page.locator(".move[data-ply='1']").inner_text() == "P-7f"
    v.shot("shogi-coordinates.png")
    v.click("[data-action=flip]")  # from gote's side: 1-9 and i-a
    v.page.wait_for_function(
        "document.querySelector('.game-view .cg-board-el').classList.contains('orientation-black')"
    )
    assert coords(v.page, "top") == list("123456789")
    # a chess board keeps a-h / 1-8
    chess = v.page.request.post(
        f"{server}api/games", data={"color": "white", "movetime_ms": 200}
    ).json()
    v.page.goto(f"{server}#/game/{chess['id']}")
    v.page.wait_for_selector(".game-view cg-board piece")
    assert coords(v.page, "bottom") == list("abcdefgh")


def test_material_copy_feedback_and_a_red_loss(visitors, server):
    v = visitors()
    page = v.page
    home(v, server)
    page.select_option("select[name=clock]", "none")
    v.click("[data-action=hot-seat]")
    page.wait_for_function("location.hash.startsWith('#/game/')")
    page.wait_for_selector(".game-view cg-board piece")
    for ply, (frm, to) in enumerate([("e2", "e4"), ("d7", "d5"), ("e4", "d5")], 1):
        move(page, frm, to, ply)
    page.wait_for_function(
        "document.querySelector('.material[data-color=white]').textContent.includes('+1')"
    )
    assert page.locator(".material[data-color=white] .mat-piece").count() == 1
    assert page.locator(".material[data-color=white] .mat-piece").get_attribute("data-role") == (
        "p-piece"
    )
    assert page.locator(".material[data-color=black] .mat-piece").count() == 0
    page.click("[data-action=fen]")
    page.wait_for_selector("[data-action=fen].copied")
    assert page.locator("[data-action=fen]").inner_text() == "Copied ✓"
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.startswith("rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq -")
    page.wait_for_function("document.querySelector('[data-action=fen]').textContent === 'FEN'")
    # hot-seat: whoever wins, the panel is neutral
    page.click("[data-action=resign]")
    banner(page)
    assert page.locator(".game-over").get_attribute("data-outcome") == "neutral"
    # against ferz, a resignation is a loss: red, not the win's green
    home(v, server)
    v.click("[data-action=play-ferz]")
    page.wait_for_function("location.hash.startsWith('#/game/')")
    page.wait_for_selector(".game-view cg-board piece")
    page.click("[data-action=resign]")
    assert banner(page).startswith("You lost (")
    assert page.locator(".game-over").get_attribute("data-outcome") == "loss"
    color = page.locator(".game-over").evaluate("e => getComputedStyle(e).backgroundColor")
    assert color == "rgb(168, 56, 44)"


def test_a_banner_while_the_server_cannot_be_reached(visitors, tmp_path):
    v = visitors()
    with running_server(tmp_path / "games.sqlite3") as port:
        url = f"http://127.0.0.1:{port}/"
        home(v, url)
        v.click("[data-action=play-ferz]")
        v.page.wait_for_selector(".game-view cg-board piece")
        assert v.page.locator("#offline").is_hidden()
    v.page.wait_for_selector("#offline", state="visible", timeout=15_000)
    assert "cannot be reached" in v.page.locator("#offline").inner_text()
    v.shot("offline.png")


def test_the_phone_layout_of_the_home_page(visitors, server):
    v = visitors(width=390, height=844)
    home(v, server)
    assert v.page.evaluate("document.documentElement.scrollWidth") <= 390
    tile = v.page.locator(".tile").first.bounding_box()
    assert tile is not None and tile["width"] >= 70 and tile["height"] >= 50  # easy to tap
    v.shot("home-phone.png")
    v.click("[data-action=pick-variant]")
    v.page.wait_for_selector(".variant-picker .variant-option")
    assert v.page.evaluate("document.documentElement.scrollWidth") <= 390
    v.shot("variant-picker-phone.png")


def test_play_a_friend_from_home_a_link_copied_and_colours_drawn_when_opened(visitors, server):
    alice, bob = visitors(), visitors()
    home(alice, server)
    alice.page.select_option("select[name=clock]", "5+3")
    alice.click("[data-action=play-friend]")
    alice.page.wait_for_selector(".invite-link")
    assert "colours are drawn when they open it" in alice.page.locator(".offer.invite").inner_text()
    link = alice.page.locator(".invite-link").input_value()
    alice.page.click("[data-action=copy-link]")
    alice.page.wait_for_selector("[data-action=copy-link].copied")
    assert alice.page.locator("[data-action=copy-link]").inner_text() == "Copied ✓"
    assert alice.page.evaluate("navigator.clipboard.readText()") == link
    bob.page.goto(link)
    bob.page.wait_for_selector(".game-view cg-board piece")
    alice.page.wait_for_function("!document.querySelector('.invite-link')")
    a, b = alice.game(server), bob.game(server)
    assert sorted(a["you"] + b["you"]) == ["black", "white"]
    assert a["clock"]["increment_ms"] == 3000 and a["settings"]["random_color"] is False
    assert alice.clicks <= 2
    # the analysis board's FEN button says so too
    alice.page.goto(server + "#/analysis")
    alice.page.wait_for_selector(".board-col cg-board piece")
    alice.page.click("[data-action=fen]")
    alice.page.wait_for_selector("[data-action=fen].copied")
    assert alice.page.evaluate("navigator.clipboard.readText()").startswith("rnbqkbnr/pppppppp/")


def test_a_seek_waiting_on_the_home_page_is_played_in_one_click(visitors, server):
    dave, erin = visitors(), visitors()
    home(dave, server)
    dave.click("[data-action=quick][data-clock='15+10']")
    dave.page.wait_for_selector(".offer.seek")
    seek = dave.page.evaluate("location.hash").split("/")[-1]
    home(erin, server)
    erin.click(f".home-seeks li[data-seek='{seek}'] [data-action=accept-seek]")
    erin.page.wait_for_function(f"location.hash === '#/game/{seek}'")
    erin.page.wait_for_selector(".game-view cg-board piece")
    dave.page.wait_for_function("!document.querySelector('.offer.seek')")
    assert sorted(dave.game(server)["you"] + erin.game(server)["you"]) == ["black", "white"]
    assert erin.clicks == 1
    # taken: it leaves every home page
    home(dave, server)
    dave.page.wait_for_selector(f".home-seeks li[data-seek='{seek}']", state="detached")
