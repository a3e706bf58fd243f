"""Every relative link of the README, docs/ and bench/README.md points at something that exists.

A link ``[text](path)`` or ``![alt](path)`` outside code must name a file of the repository,
relative to the page; ``path#anchor`` (and ``#anchor`` within the page) a heading of that
Markdown page, with the anchor GitHub gives it (lower case, punctuation dropped, spaces as
hyphens, ``-1``, ``-2`` after repeats). Web links are not followed.
"""

from pathlib import Path
import re

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = sorted([REPO / 'README.md', REPO / 'bench' / 'README.md',
                *(REPO / 'docs').glob('*.md')])

_FENCE = re.compile(r'^(```|~~~).*?^\1\s*$', re.M | re.S)
_LINK = re.compile(r'!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')  # an optional "title"


def without_code(text):
    """Return Markdown text without fenced code blocks and inline code spans."""
    text = _FENCE.sub('', text)
    return re.sub(r'`[^`\n]*`', '', text)


def slug(heading):
    """Return the anchor GitHub gives a heading's text."""
    text = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return text.replace(' ', '-')


def anchors(text):
    """Return the anchors of a Markdown page's headings (repeats numbered as GitHub does)."""
    found, seen = set(), {}
    for match in re.finditer(r'^#{1,6} (.+?)\s*#*$', _FENCE.sub('', text), re.M):
        base = slug(match.group(1))
        count = seen.get(base, 0)
        found.add(base if count == 0 else f'{base}-{count}')
        seen[base] = count + 1
    return found


def link_problems(page, text):
    """Return one line per link of ``text`` (the page at ``page``) that points at nothing."""
    prose = without_code(text)
    spans = [match.span() for match in _LINK.finditer(prose)]
    problems = [f'{page.relative_to(REPO)}: a link this check cannot read: '
                f'{prose[prose.rfind("[", 0, i):prose.find(")", i) + 1]!r}'
                for i in (m.start() for m in re.finditer(r'\]\(', prose))
                if not any(start <= i < end for start, end in spans)]
    for target in _LINK.findall(prose):
        if re.match(r'^[a-z][a-z+.-]*:', target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition('#')
        where = f'{page.relative_to(REPO)}: ({target})'
        file, page_text = page, text
        if path:
            file = (page.parent / path).resolve()
            if not file.exists():
                problems.append(f'{where}: no such file')
                continue
            if not file.is_relative_to(REPO):
                problems.append(f'{where}: outside the repository')
                continue
            page_text = file.read_text() if anchor and file.suffix == '.md' else ''
        if anchor and (file.suffix != '.md' or anchor not in anchors(page_text)):
            problems.append(f'{where}: no heading with that anchor')
    return problems


@pytest.mark.parametrize('page', PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_every_relative_link_points_at_something(page):
    assert link_problems(page, page.read_text()) == []


def test_the_pages_link_one_another():
    readme = (REPO / 'README.md').read_text()
    for page in PAGES:
        if page.parent.name == 'docs':
            assert f'](docs/{page.name}' in readme, f'the README does not link {page.name}'


def test_anchors_are_githubs():
    assert slug('`two_bone_ik.launch.py`') == 'two_bone_iklaunchpy'
    assert slug("The controllers' topics: how the sim follows them") == (
        'the-controllers-topics-how-the-sim-follows-them')
    assert slug('Figures (`python bench/servo_bench.py`)') == 'figures-python-benchservo_benchpy'
    assert slug('What the tests show, and what they cannot') == (
        'what-the-tests-show-and-what-they-cannot')
    headings = '# A\n## A\n```\n# not a heading\n```\n## A b — c\n'
    assert anchors(headings) == {'a', 'a-1', 'a-b--c'}


def test_a_broken_link_is_found(tmp_path):
    page = REPO / 'docs' / 'sample.md'  # never written: only its folder matters
    text = ('# Sample\n[ok](node.md#parameters) [self](#sample) [web](https://x.org/y)\n'
            '[gone](nowhere.md) [bad anchor](node.md#no-such-heading) [own](#nothing)\n'
            '![picture](missing.png) `[code](not-a-link.md)`\n'
            '[titled](servo.md "the servo page") [titled ok](node.md "the node")\n'
            '```\n[also code](not-a-link.md)\n```\n')
    assert link_problems(page, text) == [
        'docs/sample.md: (nowhere.md): no such file',
        'docs/sample.md: (node.md#no-such-heading): no heading with that anchor',
        'docs/sample.md: (#nothing): no heading with that anchor',
        'docs/sample.md: (missing.png): no such file',
        'docs/sample.md: (servo.md): no such file',
    ]
    assert link_problems(page, '[spaced](node.md  oops)\n') == [
        "docs/sample.md: a link this check cannot read: '[spaced](node.md  oops)'"]
