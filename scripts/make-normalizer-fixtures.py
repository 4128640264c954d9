#!/usr/bin/env python3
"""Regenerates test/fixtures/whisper-normalizer.json: seeded random phrases of number
words, currencies, contractions, fillers, brackets, British spellings and punctuation,
each with what openai/whisper's own EnglishTextNormalizer and BasicTextNormalizer make
of it (release 20250625). test/normalizers.test.ts checks voxbench's ports give the same
words. Usage: scripts/make-normalizer-fixtures.py PATH/TO/whisper (a checkout; needs the
`regex` package; more_itertools is stood in for if missing). The output is committed;
nothing at build or test time runs this."""
import json, os, random, sys, types

whisper = sys.argv[1]
try:
    import more_itertools  # noqa: F401
except ImportError:
    def windowed(seq, n):
        seq = list(seq)
        return (tuple(seq[i:i + n]) for i in range(len(seq) - n + 1))
    sys.modules['more_itertools'] = types.SimpleNamespace(windowed=windowed)
sys.path.insert(0, os.path.join(whisper, 'whisper'))
from normalizers.basic import BasicTextNormalizer  # noqa: E402
from normalizers.english import EnglishTextNormalizer  # noqa: E402

VOCAB = ("zero oh o one two three four five six seven eight nine ten eleven twelve thirteen fifteen nineteen twenty thirty "
         "forty fifty ninety hundred thousand million billion trillion decillion first second third fifth twelfth twentieth "
         "ninetieth hundredth thousandth millions hundreds sixes ones twenties and and a half point double triple minus plus "
         "negative positive dollars dollar pounds euros cents cent percent per cent $ £ € ¢ 20 3.14 1,000 0.5 $5 $0.36 1960s "
         "10th 1 1s 3 b747 10km the cat won't can't I'm he's she's been Mr. Dr. St. colour organise um hmm uh [noise] (laughs) "
         "<unk> café naïve Œuvre straße , . ! ? - — ' \" 2nd 3rd").split(' ')
random.seed(12)
cases = [' '.join(random.choice(VOCAB) for _ in range(random.randint(1, 9))) for _ in range(600)]
english, basic = EnglishTextNormalizer(), BasicTextNormalizer()
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'fixtures', 'whisper-normalizer.json')
rows = [json.dumps({'text': c, 'english': english(c).split(), 'basic': basic(c).split()}, ensure_ascii=False) for c in cases]
with open(out, 'w', encoding='utf-8') as f:
    f.write('[\n' + ',\n'.join(rows) + '\n]\n')
