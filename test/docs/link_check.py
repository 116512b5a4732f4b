#!/usr/bin/env python3
"""
Every relative link in README.md and docs/*.md must resolve: the file or folder it names
must exist, and an #anchor must be a heading of the Markdown file it points into, under
GitHub's rules (lowercase; every character that is not a letter, digit, space, hyphen or
underscore dropped; spaces to hyphens; the second heading of the same slug gets "-1", the
third "-2"). Links with a scheme (https:, mailto:) are not fetched.

Usage: link_check.py SOURCE_ROOT            check README.md and docs/*.md under it
       link_check.py --self-test FIXTURES   the checker on known-good and known-broken
                                            files: good.md must pass, bad.md must report
                                            exactly the links its EXPECT lines name
Exit status 0 when every link resolves (or the self-test holds), 1 otherwise.
"""
import os
import re
import sys

FENCE = re.compile(r'^\s*(```|~~~)')
HEADING = re.compile(r'^#{1,6}\s+(.*?)\s*#*\s*$')
CODE_SPAN = re.compile(r'`[^`]*`')
# [text](target) and ![alt](target); text may span lines; an optional "title" after target.
LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')
SCHEME = re.compile(r'^[A-Za-z][A-Za-z0-9+.-]*:')


def prose(text):
    """The text outside fenced code blocks, line for line (fenced lines become empty)."""
    out, fenced = [], False
    for line in text.split('\n'):
        if FENCE.match(line):
            fenced = not fenced
            out.append('')
        else:
            out.append('' if fenced else line)
    return '\n'.join(out)


def slug(heading):
    """GitHub's anchor for a heading's Markdown text."""
    text = re.sub(r'!?\[([^\]]*)\]\([^)]*\)', r'\1', heading)  # a link shows its text
    text = text.replace('`', '')
    text = re.sub(r'<[^>]+>', '', text)                         # inline HTML tags
    text = text.lower()
    text = re.sub(r'[^\w\- ]', '', text)  # \w: Unicode letters, digits and _
    return text.replace(' ', '-')


_anchors = {}


def anchors(path):
    """The set of anchors GitHub makes for the headings of the Markdown file at path."""
    if path not in _anchors:
        seen, found = {}, set()
        with open(path, encoding='utf-8') as f:
            for line in prose(f.read()).split('\n'):
                m = HEADING.match(line)
                if not m:
                    continue
                s = slug(m.group(1))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else '%s-%d' % (s, n))
        _anchors[path] = found
    return _anchors[path]


def links(path):
    """The links of one Markdown file outside code, as (line, target)."""
    with open(path, encoding='utf-8') as f:
        text = prose(f.read())
    # Code spans cannot hold links; blank them out keeping the line count.
    text = CODE_SPAN.sub(lambda m: re.sub(r'[^\n]', 'x', m.group(0)), text)
    return [(text.count('\n', 0, m.start()) + 1, m.group(1)) for m in LINK.finditer(text)]


def check_file(path):
    """The broken links of one Markdown file, as (line, target, reason)."""
    broken = []
    for line, target in links(path):
        if SCHEME.match(target):
            continue
        file_part, _, anchor = target.partition('#')
        dest = path if file_part == '' else os.path.normpath(
            os.path.join(os.path.dirname(path), file_part))
        if not os.path.exists(dest):
            broken.append((line, target,
                           'no such file or folder: %s' % os.path.relpath(dest)))
        elif anchor:
            if not dest.endswith('.md') or os.path.isdir(dest):
                broken.append((line, target, 'an anchor into a file that is not Markdown'))
            elif anchor not in anchors(dest):
                broken.append((line, target, 'no heading of %s has the anchor #%s'
                               % (os.path.relpath(dest), anchor)))
    return broken


def check_tree(root):
    files = [os.path.join(root, 'README.md')]
    docs = os.path.join(root, 'docs')
    files += sorted(os.path.join(docs, f) for f in os.listdir(docs) if f.endswith('.md'))
    bad = 0
    for path in files:
        for line, target, reason in check_file(path):
            print('%s:%d: (%s): %s' % (os.path.relpath(path, root), line, target, reason))
            bad += 1
    print('%d broken of %d links in %d files'
          % (bad, sum(len(links(p)) for p in files), len(files)))
    return bad == 0


def self_test(fixtures):
    ok = True
    good = check_file(os.path.join(fixtures, 'good.md'))
    for line, target, reason in good:
        print('good.md:%d: (%s) reported broken: %s' % (line, target, reason))
        ok = False
    bad_path = os.path.join(fixtures, 'bad.md')
    with open(bad_path, encoding='utf-8') as f:
        expected = set(re.findall(r'EXPECT: (\S+)', f.read()))
    reported = set(t for _, t, _ in check_file(bad_path))
    for t in sorted(expected - reported):
        print('bad.md: (%s) is broken but was not reported' % t)
        ok = False
    for t in sorted(reported - expected):
        print('bad.md: (%s) was reported but is not in an EXPECT line' % t)
        ok = False
    print('self-test: %d good links, %d broken ones expected, %d reported: %s'
          % (len(links(os.path.join(fixtures, 'good.md'))), len(expected), len(reported),
             'ok' if ok else 'FAILED'))
    return ok


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--self-test':
        sys.exit(0 if self_test(sys.argv[2]) else 1)
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(0 if check_tree(sys.argv[1]) else 1)
