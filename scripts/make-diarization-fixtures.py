#!/usr/bin/env python3
"""Regenerates test/fixtures/diarization-pyannote.json: seeded random reference and
hypothesis speaker turns (overlaps, extra and missing speakers, some with a UEM), each
scored by pyannote.metrics' own DiarizationErrorRate and JaccardErrorRate under several
collars and with overlap scored or skipped, and by md-eval (the DER scorer dscore runs)
with the same collar given per side. test/diarization.test.ts checks voxbench's scoring
gives the same parts. Usage: scripts/make-diarization-fixtures.py PATH/TO/pyannote-core
PATH/TO/pyannote-metrics PATH/TO/dscore (checkouts; needs numpy, scipy, sortedcontainers
and perl; pandas, used only by pyannote's reports, is stood in for if missing). The
output is committed; nothing at build or test time runs this."""
import importlib.metadata, json, os, random, re, subprocess, sys, tempfile, types, warnings

core, metrics, dscore = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    import pandas  # noqa: F401
except ImportError:
    sys.modules['pandas'] = types.SimpleNamespace(DataFrame=None)
# The checkouts are not installed, so their version look-ups find no metadata.
importlib.metadata.version = lambda name: 'checkout'
sys.path[:0] = [os.path.join(core, 'src'), os.path.join(metrics, 'src')]
warnings.simplefilter('ignore')  # "'uem' was approximated by the union of 'reference' and 'hypothesis' extents."
from pyannote.core import Annotation, Segment, Timeline  # noqa: E402
from pyannote.metrics.diarization import DiarizationErrorRate, JaccardErrorRate  # noqa: E402

random.seed(27)


def speaker_turns(speakers, length_ms):
    """Each speaker's turns, disjoint and apart within a speaker, in whole ms; speakers overlap freely."""
    turns = []
    for speaker in speakers:
        at = random.randint(0, length_ms // 3)
        for _ in range(random.randint(1, 5)):
            duration = random.randint(50, 3000)
            if at + duration > length_ms:
                break
            turns.append({'speaker': speaker, 'startMs': at, 'endMs': at + duration})
            at += duration + random.randint(1, 2500)
    return turns


def merged(turns):
    """A speaker's overlapping turns made one, since pyannote.metrics counts a speaker twice where its own turns overlap."""
    out = []
    for t in sorted(turns, key=lambda t: (t['speaker'], t['startMs'])):
        if out and out[-1]['speaker'] == t['speaker'] and t['startMs'] <= out[-1]['endMs']:
            out[-1]['endMs'] = max(out[-1]['endMs'], t['endMs'])
        else:
            out.append(dict(t))
    return out


def system_turns(reference, length_ms):
    """Half the time an independent segmentation; else the reference with boundaries moved, speakers renamed, merged or split, turns dropped and added."""
    if not reference or random.random() < 0.5:
        return speaker_turns([f'hyp{i}' for i in range(random.randint(1, 5))], length_ms)
    names = [f'hyp{i}' for i in range(random.randint(1, 4))]
    turns = []
    for t in reference:
        if random.random() < 0.15:
            continue
        start = max(0, t['startMs'] + random.randint(-400, 400))
        end = max(start + 1, t['endMs'] + random.randint(-400, 400))
        turns.append({'speaker': names[int(t['speaker'][3:]) % len(names)] if random.random() < 0.8 else random.choice(names), 'startMs': start, 'endMs': end})
    turns += speaker_turns([random.choice(names)], length_ms)[:1]
    return merged(turns)


def jer_sums(metric, reference, hypothesis, **kwargs):
    """JER's summed speaker errors under every pairing tied for the most time together:
    where several tie, scipy's order picks one and JER depends on which, so any is right."""
    ref, hyp = metric.uemify(reference, hypothesis, collar=metric.collar, skip_overlap=metric.skip_overlap, **kwargs)
    ref, hyp = ref.rename_labels(generator='string'), hyp.rename_labels(generator='int')
    together = ref * hyp
    refs, hyps = ref.labels(), hyp.labels()

    def pairings(i, used):
        if i == len(refs):
            yield {}
            return
        for rest in pairings(i + 1, used):
            yield rest
        for j in range(len(hyps)):
            if j not in used and together[i, j] > 0:
                for rest in pairings(i + 1, used | {j}):
                    yield {refs[i]: hyps[j], **rest}

    weight = lambda p: sum(together[refs.index(r), hyps.index(h)] for r, h in p.items())
    candidates = list(pairings(0, frozenset()))
    best = max((weight(p) for p in candidates), default=0)
    sums = set()
    for p in candidates:
        if abs(weight(p) - best) < 1e-9:
            metric.optimal_mapping = lambda h, r, p=p: p
            sums.add(round(metric(reference, hypothesis, detailed=True, **kwargs)['speaker error'], 12))
    del metric.optimal_mapping
    return sorted(sums)


def md_eval(reference, hypothesis, uem, collar_s, skip_overlap):
    """md-eval-22.pl's speaker times, run as dscore runs it (scorelib/metrics.py `der`): its
    UEM, else the extent of both sides; None where md-eval reports nothing (no reference)."""
    if not reference:
        return None
    folder = tempfile.mkdtemp()
    for name, turns in (('ref', reference), ('sys', hypothesis)):
        with open(os.path.join(folder, name + '.rttm'), 'w') as f:
            for t in turns:
                f.write(f"SPEAKER rec 1 {t['startMs'] / 1000:.3f} {(t['endMs'] - t['startMs']) / 1000:.3f} <NA> <NA> {t['speaker']} <NA> <NA>\n")
    both = reference + hypothesis
    regions = uem or [{'startMs': min(t['startMs'] for t in both), 'endMs': max(t['endMs'] for t in both)}]
    with open(os.path.join(folder, 'all.uem'), 'w') as f:
        f.writelines(f"rec 1 {u['startMs'] / 1000:.3f} {u['endMs'] / 1000:.3f}\n" for u in regions)
    command = ['perl', os.path.join(dscore, 'scorelib', 'md-eval-22.pl'), '-af', '-c', str(collar_s), '-u', os.path.join(folder, 'all.uem'),
               '-r', os.path.join(folder, 'ref.rttm'), '-s', os.path.join(folder, 'sys.rttm')] + (['-1'] if skip_overlap else [])
    # md-eval exits 255 when collars leave nothing scored, after printing its times.
    out = subprocess.run(command, capture_output=True, text=True).stdout
    seconds = lambda label: float(re.findall(label + r' TIME =\s*([\d.]+)', out)[-1]) * 1000
    return {'scoredMs': seconds('SCORED SPEAKER'), 'missedMs': seconds('MISSED SPEAKER'),
            'falseAlarmMs': seconds('FALARM SPEAKER'), 'confusionMs': seconds('SPEAKER ERROR')}


def annotation(turns):
    a = Annotation()
    for i, t in enumerate(turns):
        a[Segment(t['startMs'] / 1000, t['endMs'] / 1000), i] = t['speaker']
    return a


recordings = []
for n in range(80):
    length_ms = random.randint(2000, 20000)
    reference = speaker_turns([f'ref{i}' for i in range(0 if n == 0 else random.randint(1, 4))], length_ms)
    hypothesis = [] if n == 1 else system_turns(reference, length_ms)
    uem = None
    if n % 4 == 3:
        start = random.randint(0, length_ms // 2)
        uem = [{'startMs': start, 'endMs': random.randint(start + 1, length_ms)}]
    scores = []
    for collar_ms in (0, 500, 1000):
        for skip_overlap in (False, True):
            kwargs = {'uem': Timeline([Segment(u['startMs'] / 1000, u['endMs'] / 1000) for u in uem])} if uem else {}
            der = DiarizationErrorRate(collar=collar_ms / 1000, skip_overlap=skip_overlap)(annotation(reference), annotation(hypothesis), detailed=True, **kwargs)
            jer_metric = JaccardErrorRate(collar=collar_ms / 1000, skip_overlap=skip_overlap)
            try:
                jer = jer_metric(annotation(reference), annotation(hypothesis), detailed=True, **kwargs)
                tied = jer_sums(jer_metric, annotation(reference), annotation(hypothesis), **kwargs)
            except ZeroDivisionError:  # no reference speaker scored
                jer, tied = {'speaker error': 0, 'speaker count': 0}, []
            scores.append({
                'collarTotalMs': collar_ms, 'skipOverlap': skip_overlap,
                'scoredMs': der['total'] * 1000, 'missedMs': der['missed detection'] * 1000,
                'falseAlarmMs': der['false alarm'] * 1000, 'confusionMs': der['confusion'] * 1000,
                'jerSpeakerErrorSum': jer['speaker error'], 'jerSpeakers': jer['speaker count'],
                **({'jerTiedSums': tied} if len(tied) > 1 else {}),
                **({'mdEval': md} if (md := md_eval(reference, hypothesis, uem, collar_ms / 2000, skip_overlap)) else {}),
            })
    recordings.append({'reference': reference, 'hypothesis': hypothesis, **({'uem': uem} if uem else {}), 'scores': scores})

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'diarization-pyannote.json')
with open(out, 'w', encoding='utf-8') as f:
    f.write('[\n' + ',\n'.join(json.dumps(r, separators=(',', ':')) for r in recordings) + '\n]\n')
