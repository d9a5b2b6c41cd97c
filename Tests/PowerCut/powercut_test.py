#!/usr/bin/env python3
"""Power-cut trials: Reel writes onto powercutfs (a FUSE filesystem that models a disk losing power), the
power is cut at chosen moments (a fragment's write, right after or during a sync, the index append, the
switch to a regular movie, a rename, a random time, after the command finished), Reel is SIGKILLed, and
the durable tree (what the disk holds after the cut) is checked:

* a recording (written in place, in fragments) is absent only if nothing of it was ever synced; otherwise it
  opens and decodes with no error line, with at least the video frames of its complete fragments, or it is a
  complete regular movie;
* a segmented recording (2 s segments, 1 s fragments, cut at random times, when the next segment is created,
  while a finished segment is finalized, while loop recording deletes the oldest): every segment file is
  checked as a recording (its regular form lasts one segment), and a segment is missing only if loop recording
  deleted it or nothing of it was ever synced;
* a transcode's or a batch job's final name is absent or names a complete movie (the source's duration
  within a frame, every frame, decodes clean); hidden .NAME.partial files may remain.

    python3 Tests/PowerCut/powercut_test.py [--reel PATH] [--trials N] [--seed S] [--results FILE.json]

Needs /dev/fuse, Debian's python3-fusepy (for --fs-python, default /usr/bin/python3), fusermount, ffmpeg and
ffprobe. Standard library only. Exit 0 when every trial passed, 1 on any failure, 2 on a setup problem.
"""
import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FPS = 30
SOURCE_SECONDS = 4


# ----- small helpers ---------------------------------------------------------------------------------------------

def run(cmd, timeout=60, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout, **kw)


def find_reel(given):
    for path in [given, os.environ.get('REEL'), os.path.join(REPO, '.build/release/reel'),
                 os.path.join(REPO, '.build/debug/reel'), shutil.which('reel')]:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.abspath(path)
    return None


def is_mounted(path):
    path = os.path.realpath(path)
    with open('/proc/self/mounts') as f:
        return any(line.split()[1] == path for line in f)


def unmount(path, fs_proc=None):
    """fusermount -u, then lazily; waits for the filesystem process (bounded), kills it if it lingers."""
    for cmd in (['fusermount', '-u', path], ['fusermount3', '-u', path], ['umount', path],
                ['fusermount', '-uz', path], ['umount', '-l', path]):
        if not is_mounted(path):
            break
        if shutil.which(cmd[0]):
            try:
                run(cmd, timeout=10)
            except subprocess.TimeoutExpired:
                pass
    if fs_proc is not None:
        try:
            fs_proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            fs_proc.kill()
            fs_proc.wait(timeout=5)
    return not is_mounted(path)


class Control:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(10)
        self.sock.connect(path)
        self.file = self.sock.makefile('rwb')

    def __call__(self, **request):
        self.file.write((json.dumps(request) + '\n').encode())
        self.file.flush()
        return json.loads(self.file.readline())

    def close(self):
        try:
            self.file.close()
            self.sock.close()
        except OSError:
            pass


# ----- QuickTime boxes -------------------------------------------------------------------------------------------

CONTAINERS = {b'moov', b'trak', b'mdia', b'minf', b'stbl', b'mvex', b'moof', b'traf', b'edts', b'dinf'}


def boxes(data, start=0, end=None):
    """Top-level (or child) boxes: (offset, type, size, complete)."""
    end = len(data) if end is None else end
    out, o = [], start
    while o + 8 <= end:
        size, kind = struct.unpack('>I4s', data[o:o + 8])
        header = 8
        if size == 1:
            if o + 16 > end:
                break
            size = struct.unpack('>Q', data[o + 8:o + 16])[0]
            header = 16
        elif size == 0:
            size = end - o
        if size < header:
            out.append((o, kind, size, False))
            break
        out.append((o, kind, size, o + size <= end))
        if o + size > end:
            break
        o += size
    return out


def children(data, offset, size, kind):
    header = 16 if struct.unpack('>I', data[offset:offset + 4])[0] == 1 else 8
    return boxes(data, offset + header, offset + size)


def find_all(data, offset, size, kind, path):
    """Boxes at path (list of types) under the box at offset."""
    if not path:
        return [(offset, kind, size)]
    found = []
    for o, k, s, complete in children(data, offset, size, kind):
        if complete and k == path[0]:
            found += find_all(data, o, s, k, path[1:])
    return found


def payload(data, offset):
    header = 16 if struct.unpack('>I', data[offset:offset + 4])[0] == 1 else 8
    return offset + header


def track_kinds(data, moov):
    """track_ID -> handler ('vide', 'soun')."""
    o, _, s = moov
    kinds = {}
    for t, _, ts in find_all(data, o, s, b'moov', [b'trak']):
        tkhd = find_all(data, t, ts, b'trak', [b'tkhd'])
        hdlr = find_all(data, t, ts, b'trak', [b'mdia', b'hdlr'])
        if not tkhd or not hdlr:
            continue
        p = payload(data, tkhd[0][0])
        version = data[p]
        track_id = struct.unpack('>I', data[p + (20 if version == 1 else 12):p + (24 if version == 1 else 16)])[0]
        h = payload(data, hdlr[0][0])
        kinds[track_id] = data[h + 8:h + 12].decode('latin-1')
    return kinds


def video_samples_in_moov(data, moov):
    o, _, s = moov
    for t, _, ts in find_all(data, o, s, b'moov', [b'trak']):
        hdlr = find_all(data, t, ts, b'trak', [b'mdia', b'hdlr'])
        if hdlr and data[payload(data, hdlr[0][0]) + 8:payload(data, hdlr[0][0]) + 12] == b'vide':
            stsz = find_all(data, t, ts, b'trak', [b'mdia', b'minf', b'stbl', b'stsz'])
            if stsz:
                p = payload(data, stsz[0][0])
                return struct.unpack('>I', data[p + 8:p + 12])[0]
    return 0


def analyze_movie(data, limit=None):
    """What a reader sees: the layout, the first moov's kind, the complete fragments (moof + its mdat) and
    their video samples; limit: count only fragments ending at or before this offset."""
    top = boxes(data)
    info = {'layout': ' '.join(k.decode('latin-1') + ('' if c else '(torn)') for _, k, _, c in top[:6])
                      + (' ...' if len(top) > 6 else ''),
            'kind': 'none', 'fragments': 0, 'fragment_video': 0, 'regular_video': 0, 'torn_tail': 0}
    moovs = [(o, k, s) for o, k, s, c in top if k == b'moov' and c]
    if not moovs:
        return info
    first = moovs[0]
    kinds = track_kinds(data, first)
    has_mvex = bool(find_all(data, first[0], first[2], b'moov', [b'mvex']))
    info['kind'] = 'fragmented' if has_mvex else 'regular'
    if not has_mvex:
        info['regular_video'] = video_samples_in_moov(data, first)
    complete_end = 0
    for i, (o, k, s, c) in enumerate(top):
        if c and (limit is None or o + s <= limit):
            complete_end = o + s
        if k != b'moof' or not c:
            continue
        nxt = top[i + 1] if i + 1 < len(top) else None
        if nxt is None or nxt[1] != b'mdat' or not nxt[3]:
            continue
        if limit is not None and nxt[0] + nxt[2] > limit:
            continue
        info['fragments'] += 1
        for traf, _, tsz in find_all(data, o, s, b'moof', [b'traf']):
            tfhd = find_all(data, traf, tsz, b'traf', [b'tfhd'])
            if not tfhd:
                continue
            track_id = struct.unpack('>I', data[payload(data, tfhd[0][0]) + 4:payload(data, tfhd[0][0]) + 8])[0]
            if kinds.get(track_id) != 'vide':
                continue
            for trun, _, _ in find_all(data, traf, tsz, b'traf', [b'trun']):
                info['fragment_video'] += struct.unpack('>I', data[payload(data, trun) + 4:payload(data, trun) + 8])[0]
    info['torn_tail'] = max(0, len(data) - complete_end) if limit is None else 0
    return info


# ----- decoding --------------------------------------------------------------------------------------------------

def probe(path):
    r = run(['ffprobe', '-v', 'error', '-show_entries', 'format=duration:stream=index,codec_type,duration',
             '-of', 'json', path])
    if r.returncode != 0:
        return None, r.stderr.strip()
    try:
        return json.loads(r.stdout), r.stderr.strip()
    except ValueError:
        return None, r.stdout.strip()


def decode(path):
    """(video frames decoded, error lines) with every stream decoded."""
    info, err = probe(path)
    if info is None:
        return 0, err or 'ffprobe failed', None
    video = [s['index'] for s in info.get('streams', []) if s.get('codec_type') == 'video']
    r = run(['ffmpeg', '-nostdin', '-v', 'error', '-i', path, '-map', '0', '-f', 'framecrc', '-'], timeout=120)
    frames = 0
    if video:
        # framecrc numbers output streams in input order with -map 0
        frames = sum(1 for line in r.stdout.splitlines() if line.split(',', 1)[0].strip() == str(video[0]))
    errors = (err + '\n' + r.stderr).strip()
    return frames, errors, info


# ----- the filesystem log ----------------------------------------------------------------------------------------

def read_log(path):
    out = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    except FileNotFoundError:
        pass
    return out


def file_history(log, name_pred):
    """Inodes created under names matching name_pred, their syncs and what the cut hit."""
    inos = {e['ino'] for e in log if e['op'] == 'create' and name_pred(e['path'])}
    inos |= {e['ino'] for e in log if e['op'] == 'rename' and name_pred(e['new'])}
    syncs = [e for e in log if e['op'] in ('fsync', 'fdatasync') and e.get('ino') in inos and not e.get('dir')]
    full = [e for e in syncs if not e.get('partial')]
    return {
        'inos': inos,
        # an fsync the cut interrupted ("during") made nothing durable that the caller was told about
        'synced': any((e.get('durable_size') or 0) > 0 for e in full),
        'full_syncs': len(full),
        'last_synced_size': full[-1]['durable_size'] if full else 0,
    }


def condensed(log, limit=400):
    """The operations of a run, writes folded: for the report and the results file."""
    out, writes = [], None
    for e in log:
        if e['op'] == 'write':
            if writes and writes['path'] == e['path']:
                writes['n'] += 1
                writes['bytes'] += e['size']
                writes['offsets'].append(e['offset'])
                continue
            writes = {'op': 'writes', 'path': e['path'], 'n': 1, 'bytes': e['size'], 'offsets': [e['offset']]}
            out.append(writes)
            continue
        writes = None
        item = {k: v for k, v in e.items() if k not in ('durable', 't', 'seq')}
        if e['op'] in ('cut', 'fsyncdir', 'unmount') and 'durable' in e:
            item['durable'] = e['durable']
        out.append(item)
    for w in out:
        if w.get('op') == 'writes' and len(w['offsets']) > 6:
            w['offsets'] = w['offsets'][:3] + ['...'] + w['offsets'][-2:]
    return out[:limit]


# ----- trials ----------------------------------------------------------------------------------------------------

def plan_trials(rng, count):
    """A list of trial specs: every scenario once, then random record scenarios."""
    base = [
        ('record', 'mid-fragment write', {}),
        ('record', 'right after a fragment fdatasync', {}),
        ('record', 'during a fragment fdatasync', {}),
        ('record', 'before the first folder sync', {}),
        ('record', 'torn moof: during a fragment fdatasync', {}),
        ('record', 'index append (write of the moov)', {}),
        ('record', 'during the index fdatasync', {}),
        ('record', 'switch write (mdat header)', {}),
        ('record', 'during/after the switch fdatasync', {}),
        ('record', 'random time', {}),
        ('record', 'after a clean exit', {}),
        ('record', 'default folder, after a clean exit', {}),
        ('record', 'before a fragment fdatasync, random write-back', {'writeback': 'random'}),
        ('record', 'random time, random write-back', {'writeback': 'random'}),
        ('record', 'early, lenient namespace', {'lenient': True}),
        ('transcode', 'nth write', {}),
        ('transcode', 'at the rename', {}),
        ('transcode', 'after a clean exit', {}),
        ('transcode', 'nth write, 1 s fragments', {'fragments': True}),
        ('transcode', 'after the rename, lenient namespace', {'lenient': True}),
        ('batch', 'new folder, after a clean exit', {'folder': 'out'}),
        ('batch', 'at a rename', {}),
        ('batch', 'after a clean exit', {}),
        ('batch', 'nth write, new folder', {'folder': 'out'}),
        ('batch', 'record job, new folder, after a clean exit', {'folder': 'out'}),
        ('segments', 'random time', {}),
        ('segments', 'at the creation of the next segment', {}),
        ('segments', 'index append of a finished segment', {}),
        ('segments', 'switch of a finished segment', {}),
        ('segments', 'loop recording: deleting the oldest', {'keep': 1}),
        ('segments', 'after a clean exit', {}),
    ]
    extra = ['mid-fragment write', 'right after a fragment fdatasync', 'during a fragment fdatasync',
             'before a fragment fdatasync',
             'index append (write of the moov)', 'during the index fdatasync', 'switch write (mdat header)',
             'during/after the switch fdatasync', 'random time']
    trials = list(base)
    while len(trials) < count:
        name = rng.choice(extra)
        opts = {'writeback': 'random'} if rng.random() < 0.3 else {}
        trials.append(('record', name + (', random write-back' if opts else ''), opts))
    return trials[:max(count, 1)] if count < len(base) else trials


def record_trigger(name, rng, out, duration):
    """(trigger spec or None, driver cut time or None, description)."""
    base = os.path.basename(out)
    after_truncate = {'op': 'truncate', 'path': base}
    seed = rng.randrange(1 << 30)
    if name.startswith('mid-fragment write'):
        x = rng.randrange(1500, int(duration * 50000))
        return {'op': 'write', 'path': base, 'min_offset': x, 'when': 'before'}, None, 'first write at offset >= %d' % x
    # Reel syncs the header once (#1, then the folder), then twice per fragment: its data while it is hidden
    # (#2, #4, ...) and its showing (#3, #5, ...). A recording of `duration` s in 1 s fragments cuts
    # duration - 1 fragments before it finalizes, so syncs #2 .. #2(duration-1)+1 are fragments'.
    last = 2 * (duration - 1) + 1
    if name.startswith('right after a fragment fdatasync'):
        k = rng.randint(2, last)
        return {'op': 'fsync', 'path': base, 'nth': k, 'when': 'after'}, None, 'right after fdatasync #%d' % k
    if name.startswith('during a fragment fdatasync'):
        k = rng.randint(2, last)
        order = rng.choice(['prefix', 'random'])
        return ({'op': 'fsync', 'path': base, 'nth': k, 'when': 'during', 'seed': seed, 'order': order}, None,
                'during fdatasync #%d (%s of its dirty pages reach the disk)' % (
                    k, 'a prefix' if order == 'prefix' else 'a random subset'))
    if name.startswith('torn moof'):
        k = 2 * rng.randint(1, duration - 1)  # a data sync: the new fragment's first sector reaches the disk
        return ({'op': 'fsync', 'path': base, 'nth': k, 'when': 'during', 'sectors': 1}, None,
                'during fdatasync #%d, the disk wrote the first sector of the new fragment' % k)
    if name.startswith('before a fragment fdatasync'):
        k = rng.randint(2, last)
        return {'op': 'fsync', 'path': base, 'nth': k, 'when': 'before'}, None, 'before fdatasync #%d' % k
    if name.startswith('before the first folder sync'):
        return {'op': 'fsyncdir', 'when': 'before'}, None, 'at the first fsync of a folder (before it)'
    if name.startswith('index append'):
        when = rng.choice(['before', 'during'])
        return ({'op': 'write', 'path': base, 'after': after_truncate, 'when': when, 'seed': seed}, None,
                'first write after the finalizing ftruncate (%s it)' % when)
    if name.startswith('during the index fdatasync'):
        order = rng.choice(['prefix', 'random'])
        return ({'op': 'fsync', 'path': base, 'after': after_truncate, 'when': 'during', 'seed': seed,
                 'order': order}, None, 'during the fdatasync after the moov append (%s of its pages)' % order)
    if name.startswith('switch write'):
        when = rng.choice(['before', 'after'])
        return ({'op': 'write', 'path': base, 'max_offset': 64, 'after': after_truncate, 'when': when}, None,
                'the header write after the ftruncate (%s it)' % when)
    if name.startswith('during/after the switch fdatasync'):
        when = rng.choice(['during', 'after'])
        return ({'op': 'fsync', 'path': base, 'nth': 2, 'after': after_truncate, 'when': when, 'seed': seed}, None,
                '%s the 2nd fdatasync after the ftruncate' % when)
    if name.startswith('random time'):
        t = round(rng.uniform(0.3, duration + 1.2), 2)
        return None, t, 'cut at %.2f s' % t
    if name.startswith('after a clean exit') or name.startswith('default folder'):
        return None, None, 'cut after reel exited'
    if name.startswith('early'):
        t = round(rng.uniform(0.3, 1.2), 2)
        return None, t, 'cut at %.2f s' % t
    raise ValueError(name)


SEGMENT_SECONDS = 2


def segment_trigger(name, rng, segments):
    """(trigger spec or None, driver cut time or None, description) for a recording in `segments` segments."""
    k = rng.randint(2, segments)
    finished = 'rec-%03d.mov' % rng.randint(1, segments - 1)
    seed = rng.randrange(1 << 30)
    after_truncate = {'op': 'truncate', 'path': finished}
    if name.startswith('random time'):
        t = round(rng.uniform(0.5, segments * SEGMENT_SECONDS + 1.0), 2)
        return None, t, 'cut at %.2f s' % t
    if name.startswith('at the creation'):
        when = rng.choice(['before', 'after'])
        return ({'op': 'create', 'path': 'rec-%03d.mov' % k, 'when': when}, None,
                '%s rec-%03d.mov is created' % (when, k))
    if name.startswith('index append'):
        when = rng.choice(['before', 'during'])
        return ({'op': 'write', 'path': finished, 'after': after_truncate, 'when': when, 'seed': seed}, None,
                'the moov append to %s (%s it)' % (finished, when))
    if name.startswith('switch of a finished'):
        when = rng.choice(['during', 'after'])
        return ({'op': 'fsync', 'path': finished, 'nth': 2, 'after': after_truncate, 'when': when, 'seed': seed},
                None, '%s the switch fdatasync of %s' % (when, finished))
    if name.startswith('loop recording'):
        when = rng.choice(['before', 'after'])
        n = rng.randint(1, segments - 2)
        return ({'op': 'unlink', 'path': 'rec-*.mov', 'nth': n, 'when': when}, None,
                '%s loop recording deletes segment #%d' % (when, n))
    if name.startswith('after a clean exit'):
        return None, None, 'cut after reel exited'
    raise ValueError(name)


class Runner:
    def __init__(self, args, reel, work, source):
        self.args = args
        self.reel = reel
        self.work = work
        self.source = source
        self.source_duration = None

    def mount(self, tdir, opts, seed):
        disk, mnt = os.path.join(tdir, 'disk'), os.path.join(tdir, 'mnt')
        os.makedirs(disk)
        os.makedirs(mnt)
        ctl, log = os.path.join(tdir, 'ctl'), os.path.join(tdir, 'fs.jsonl')
        cmd = [self.args.fs_python, os.path.join(HERE, 'powercutfs.py'), disk, mnt, '--control', ctl, '--log', log,
               '--seed', str(seed), '--no-real-fsync']
        if opts.get('lenient'):
            cmd.append('--lenient')
        if opts.get('writeback'):
            cmd += ['--writeback', opts['writeback']]
        out = open(os.path.join(tdir, 'fs.out'), 'w')
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError('powercutfs exited: ' + open(os.path.join(tdir, 'fs.out')).read()[-2000:])
            if is_mounted(mnt) and os.path.exists(ctl):
                break
            time.sleep(0.05)
        else:
            proc.kill()
            raise RuntimeError('powercutfs did not mount within 15 s')
        return disk, mnt, ctl, log, proc

    def drive(self, tdir, cmd, cwd, ctl, trigger, cut_at, timeout):
        """Runs cmd, cuts by trigger / at cut_at / after it exits; SIGKILLs it. Returns what happened."""
        control = Control(ctl)
        try:
            if trigger:
                control(cmd='arm', trigger=trigger)
            out = open(os.path.join(tdir, 'reel.out'), 'w')
            start = time.monotonic()
            proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True)
            how = None
            while True:
                now = time.monotonic() - start
                status = control(cmd='status')
                if status['cut']:
                    how = 'trigger'
                    break
                if proc.poll() is not None:
                    how = 'after-exit'
                    break
                if cut_at is not None and now >= cut_at:
                    how = 'time'
                    break
                if now > timeout:
                    how = 'timeout'
                    break
                time.sleep(0.02)
            exited = proc.poll()
            if how != 'trigger':
                control(cmd='cut', note=how)
            cut_time = time.monotonic() - start
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            proc.wait(timeout=10)
            status = control(cmd='status')
            return {'how': how, 'reel_exit': exited, 'cut_time': round(cut_time, 2), 'cut_info': status['cut_info']}
        finally:
            control.close()

    def check_recording(self, path, log, duration, objects, name_pred=None):
        hist = file_history(log, name_pred or (lambda p: p.endswith('.mov') and '/.' not in p))
        res = {'synced': hist['synced'], 'full_syncs': hist['full_syncs']}
        if path is None or not os.path.exists(path):
            res['left'] = 'absent'
            # The disk may still hold the inode (fsck would put it in lost+found): powercutfs keeps every
            # durable inode in its objects folder. Losing it is a failure only if it held media.
            orphans = [os.path.join(objects, 'ino-%d' % i) for i in sorted(hist['inos'])]
            orphans = [o for o in orphans if os.path.exists(o)]
            held = [analyze_movie(open(o, 'rb').read()) for o in orphans]
            lost = [h for h in held if h['fragments'] > 0 or h['kind'] == 'regular']
            dirsyncs = [e for e in log if e['op'] == 'fsyncdir']
            folders = ', '.join('%s +%s' % (e['path'], e['added']) for e in dirsyncs) or 'none'
            if lost:
                res['verdict'] = 'FAIL'
                what = ('the complete regular movie (%d video frames)' % lost[0]['regular_video']
                        if lost[0]['kind'] == 'regular' else
                        '%d synced fragments (%d video frames)' % (lost[0]['fragments'], lost[0]['fragment_video']))
                res['why'] = ('lost: the disk holds its inode with %s after %d fdatasyncs, but no durable name reaches '
                              'it (folder syncs before the cut: %s)' % (what, hist['full_syncs'], folders))
            else:
                res['verdict'] = 'ok'
                res['why'] = ('no fragment of it was ever synced' if hist['synced'] else 'nothing of it was ever synced')
            return res
        data = open(path, 'rb').read()
        res['size'] = len(data)
        if not data:
            res['left'] = 'empty'
            res['verdict'] = 'FAIL' if hist['synced'] else 'ok'
            res['why'] = ('empty although %d bytes were synced' % hist['last_synced_size'] if hist['synced']
                          else 'empty file: its name reached the disk, no data did (nothing synced)')
            return res
        movie = analyze_movie(data)
        synced = analyze_movie(data, limit=hist['last_synced_size']) if hist['last_synced_size'] else None
        res.update(layout=movie['layout'], kind=movie['kind'], fragments=movie['fragments'],
                   synced_fragments=synced['fragments'] if synced else 0, torn_tail=movie['torn_tail'])
        frames, errors, info = decode(path)
        res['frames'] = frames
        if errors:
            res['errors'] = errors.splitlines()[:6]
        if info is None:
            res['verdict'] = 'FAIL'
            res['why'] = 'does not open: ' + errors.splitlines()[0] if errors else 'does not open'
            return res
        if movie['kind'] == 'regular':
            want = movie['regular_video']
            vdur = [float(s['duration']) for s in info['streams'] if s.get('codec_type') == 'video' and 'duration' in s]
            res['duration'] = round(vdur[0], 3) if vdur else None
            problems = []
            if frames != want:
                problems.append('%d of the %d frames of its index decoded' % (frames, want))
            if vdur and abs(vdur[0] - duration) > 1.0 / FPS + 1e-6:
                problems.append('video lasts %.3f s, not %d s' % (vdur[0], duration))
            if errors:
                problems.append('decoder errors')
            res['verdict'] = 'FAIL' if problems else 'ok'
            res['why'] = '; '.join(problems) or 'complete regular movie'
            return res
        want = movie['fragment_video']
        problems = []
        if movie['fragments'] == 0 and frames == 0 and errors:
            # A movie with no fragment shown yet (Reel shows a fragment only once it is synced): ffmpeg opens
            # it and, finding no frame at all, complains of that alone; that is not a decoding error.
            empty = ('Cannot determine format of input stream', 'Error marking filters as finished')
            errors = '\n'.join(line for line in errors.splitlines() if not line.startswith(empty))
            if not errors:
                res.pop('errors', None)
                res['verdict'] = 'ok'
                res['why'] = 'an empty movie: it opens, no fragment had been shown yet'
                return res
        if frames < want:
            problems.append('%d frames decoded, its %d complete fragments hold %d' % (frames, movie['fragments'], want))
        if synced and movie['fragments'] < synced['fragments']:
            problems.append('fewer complete fragments than were synced')
        if errors:
            problems.append('decoder errors' + (' (a torn fragment of %d bytes after the last complete one)'
                                                % movie['torn_tail'] if movie['torn_tail'] else ''))
        res['verdict'] = 'FAIL' if problems else 'ok'
        res['why'] = '; '.join(problems) or 'fragmented movie, plays up to its last fragment'
        return res

    def check_segments(self, disk, log, opts):
        """Every segment Reel created, each checked as a recording of one segment's length; one it deleted
        itself (loop recording) may be absent, and the segments left must be the newest ones."""
        pattern = re.compile(r'^/rec-(\d{3})\.mov$')
        created = sorted({e['path'] for e in log if e['op'] == 'create' and pattern.match(e['path'])})
        deleted = {e['path'] for e in log if e['op'] == 'unlink' and pattern.match(e['path'])}
        outputs = {}
        for name in created:
            path = os.path.join(disk, name.lstrip('/'))
            present = os.path.exists(path)
            if not present and name in deleted:
                outputs[name.lstrip('/')] = {'left': 'absent', 'verdict': 'ok', 'why': 'deleted by loop recording'}
                continue
            outputs[name.lstrip('/')] = self.check_recording(path if present else None, log, SEGMENT_SECONDS,
                                                             disk.rstrip('/') + '.objects',
                                                             name_pred=lambda p, name=name: p == name)
        if not created:
            outputs['rec-001.mov'] = {'left': 'absent', 'verdict': 'ok', 'why': 'reel created no segment before the cut'}
        # Loop recording deletes the oldest first, and a folder sync makes every earlier name change durable:
        # a segment older than one on the disk is missing only if Reel deleted it, and none outlives a newer
        # one whose deletion reached the disk.
        present = [n for n in created if os.path.exists(os.path.join(disk, n.lstrip('/')))]
        gone = [n for n in created if n not in present]
        for name in gone:
            newer = [p for p in present if p > name]
            if newer and name not in deleted:
                outputs[name.lstrip('/')].update(verdict='FAIL', why='missing, though the newer %s is on the disk'
                                                 % newer[0].lstrip('/'))
        for name in present:
            newer_gone = [g for g in gone if g > name and g in deleted]
            if newer_gone:
                outputs[name.lstrip('/')].update(verdict='FAIL', why='kept, though the newer %s was deleted'
                                                 % newer_gone[0].lstrip('/'))
        return outputs

    def check_final(self, path, seconds=None):
        """A transcode's or batch job's final name: absent, or complete (seconds: a record job's length)."""
        if not os.path.exists(path):
            return {'left': 'absent', 'verdict': 'ok', 'why': 'absent'}
        data = open(path, 'rb').read()
        res = {'size': len(data)}
        movie = analyze_movie(data) if data else {'layout': '', 'kind': 'none'}
        res['layout'] = movie['layout']
        frames, errors, info = decode(path)
        res['frames'] = frames
        problems = []
        if info is None:
            problems.append('does not open')
        else:
            d = float(info.get('format', {}).get('duration', 0) or 0)
            res['duration'] = round(d, 3)
            want = self.source_duration if seconds is None else seconds
            if abs(d - want) > 1.0 / FPS + 1e-6:
                problems.append('lasts %.3f s, %s %.3f s' % (d, 'the source' if seconds is None else 'not', want))
            if frames != round(want * FPS):
                problems.append('%d frames, not %d' % (frames, round(want * FPS)))
        if errors:
            res['errors'] = errors.splitlines()[:6]
            problems.append('decoder errors')
        res['verdict'] = 'FAIL' if problems else 'ok'
        res['why'] = '; '.join(problems) or 'complete'
        return res

    def trial(self, number, kind, name, opts, rng):
        seed = rng.randrange(1 << 30)
        tdir = os.path.join(self.work, 'trial-%02d' % number)
        os.makedirs(tdir)
        disk, mnt, ctl, log_path, fs_proc = self.mount(tdir, opts, seed)
        result = {'trial': number, 'kind': kind, 'scenario': name, 'options': opts, 'fs_seed': seed}
        try:
            if kind == 'record':
                duration = self.args.duration
                if name.startswith('default folder'):
                    cmd = [self.reel, 'record']
                else:
                    cmd = [self.reel, 'record', os.path.join(mnt, 'rec.mov')]
                cmd += ['--video', 'lavfi:testsrc2', '--audio', 'lavfi:sine', '--preset', '352x288',
                        '--fragment-interval', '1', '--max-duration', str(duration), '--quiet']
                trigger, cut_at, what = record_trigger(name, rng, 'rec.mov', duration)
                result['cut_plan'] = what
                result.update(self.drive(tdir, cmd, mnt, ctl, trigger, cut_at, timeout=duration + 15))
            elif kind == 'segments':
                segments = self.args.segments
                cmd = [self.reel, 'record', os.path.join(mnt, 'rec.mov'), '--video', 'lavfi:testsrc2',
                       '--audio', 'lavfi:sine', '--preset', '352x288', '--fragment-interval', '1',
                       '--segment-duration', str(SEGMENT_SECONDS),
                       '--max-duration', str(segments * SEGMENT_SECONDS), '--quiet']
                if opts.get('keep'):
                    cmd += ['--keep-segments', str(opts['keep'])]
                trigger, cut_at, what = segment_trigger(name, rng, segments)
                result['cut_plan'] = what
                result.update(self.drive(tdir, cmd, mnt, ctl, trigger, cut_at,
                                         timeout=segments * SEGMENT_SECONDS + 15))
            else:
                trigger, cut_at, what, cmd, finals = self.plan_file_job(kind, name, opts, rng, tdir, mnt)
                result['cut_plan'] = what
                result.update(self.drive(tdir, cmd, tdir, ctl, trigger, cut_at, timeout=60))
        finally:
            if not unmount(mnt, fs_proc):
                result['unmount'] = 'failed'
        log = read_log(log_path)
        result['fs_ops'] = condensed(log)
        if kind == 'record':
            path = os.path.join(disk, 'rec.mov')
            if name.startswith('default folder'):
                found = [os.path.join(d, f) for d, _, fs in os.walk(disk) for f in fs if f.endswith('.mov')]
                path = found[0] if found else None
            result['outputs'] = {'recording': self.check_recording(path, log, self.args.duration,
                                                                   disk.rstrip('/') + '.objects')}
        elif kind == 'segments':
            result['outputs'] = self.check_segments(disk, log, opts)
        else:
            seconds = self.args.duration if 'record job' in name else None
            result['outputs'] = {os.path.relpath(p, disk): self.check_final(p, seconds)
                                 for p in [os.path.join(disk, f) for f in finals]}
            partials = [os.path.relpath(os.path.join(d, f), disk) for d, _, fs in os.walk(disk) for f in fs
                        if f.endswith('.partial')]
            result['partials_left'] = partials
            renamed = [e['new'] for e in log if e['op'] == 'rename' and not e['new'].endswith('.partial')]
            for rel, out in result['outputs'].items():
                if out.get('left') == 'absent' and ('/' + rel) in renamed:
                    out['why'] = 'absent, although it had been renamed into place before the cut (%s)' % (
                        'the rename never reached the disk' if not any(e['op'] == 'fsyncdir' and
                        os.path.basename(rel) in e.get('added', []) for e in log) else
                        'its folder is not durable')
                    # what the disk still holds in an inode no name reaches (fsck's lost+found)
                    inos = {e['ino'] for e in log if e['op'] == 'rename' and e['new'] == '/' + rel}
                    for ino in inos:
                        obj = os.path.join(disk + '.objects', 'ino-%d' % ino)
                        if os.path.exists(obj):
                            held = analyze_movie(open(obj, 'rb').read())
                            if held['kind'] == 'regular':
                                out['why'] += '; the disk holds the complete movie (%d video frames) in an inode no ' \
                                              'name reaches' % held['regular_video']
        result['verdict'] = 'FAIL' if any(o['verdict'] == 'FAIL' for o in result['outputs'].values()) else 'ok'
        if result['verdict'] == 'ok' and not self.args.keep:
            shutil.rmtree(tdir, ignore_errors=True)
        return result

    def plan_file_job(self, kind, name, opts, rng, tdir, mnt):
        if kind == 'transcode':
            cmd = [self.reel, 'transcode', self.source, os.path.join(mnt, 'tc.mov'), '--preset', '352x288', '--quiet']
            if opts.get('fragments'):
                cmd += ['--fragment-interval', '1']
            finals = ['tc.mov']
            partial = '.tc.mov.partial'
        else:
            folder = opts.get('folder')
            prefix = (folder + '/') if folder else ''
            jobs = {'defaults': {'preset': '352x288'},
                    'jobs': [{'name': n, 'type': 'transcode', 'input': self.source,
                              'output': os.path.join(mnt, prefix + '{name}.mov')} for n in ('a', 'b')]}
            if 'record job' in name:
                jobs['jobs'] = [{'name': 'cam', 'type': 'record', 'video': 'lavfi:testsrc2', 'audio': 'lavfi:sine',
                                 'maxDuration': self.args.duration, 'fragmentInterval': 1,
                                 'output': os.path.join(mnt, prefix + '{name}.mov')}]
            with open(os.path.join(tdir, 'jobs.json'), 'w') as f:
                json.dump(jobs, f)
            cmd = [self.reel, 'batch', os.path.join(tdir, 'jobs.json'), '--quiet']
            finals = [prefix + 'cam.mov'] if 'record job' in name else [prefix + 'a.mov', prefix + 'b.mov']
            partial = '.*.partial'
        if name.startswith('nth write'):
            n = rng.randint(1, 12 if opts.get('fragments') or kind == 'batch' else 5)
            return ({'op': 'write', 'path': partial, 'nth': n, 'when': 'before'}, None,
                    'write #%d to %s' % (n, partial), cmd, finals)
        if name.startswith('at the rename') or name.startswith('at a rename'):
            when = rng.choice(['before', 'after'])
            n = 1 if kind == 'transcode' else rng.randint(1, 2)
            return ({'op': 'rename', 'nth': n, 'when': when}, None, '%s rename #%d' % (when, n), cmd, finals)
        if name.startswith('after the rename'):
            return {'op': 'rename', 'when': 'after'}, None, 'right after the rename', cmd, finals
        if 'after a clean exit' in name:
            if 'record job' in name:
                return None, None, 'cut after reel exited', cmd, finals
            return None, None, 'cut after reel exited', cmd, finals
        raise ValueError(name)


def model_self_check(runner, work):
    """The filesystem's model on known sequences, before any trial: what a strict POSIX disk holds after a cut."""
    tdir = os.path.join(work, 'model-check')
    os.makedirs(tdir)
    disk, mnt, ctl, log, proc = runner.mount(tdir, {}, 0)
    problems = []

    def write(name, data, sync=False, mode=os.O_CREAT | os.O_WRONLY):
        fd = os.open(os.path.join(mnt, name), mode, 0o644)
        os.write(fd, data)
        if sync:
            os.fsync(fd)
        os.close(fd)

    def syncdir(name=''):
        fd = os.open(os.path.join(mnt, name), os.O_RDONLY | os.O_DIRECTORY)
        os.fsync(fd)
        os.close(fd)

    try:
        write('kept', b'k' * 5000, sync=True)
        write('kept', b'K' * 100, mode=os.O_WRONLY | os.O_APPEND)   # unsynced: lost
        write('renamed', b'r' * 10, sync=True)
        write('unlinked', b'u' * 10, sync=True)
        os.makedirs(os.path.join(mnt, 'd'))
        write('d/inner', b'i' * 10, sync=True)
        syncdir('d')
        os.truncate(os.path.join(mnt, 'kept'), 0)                    # unsynced truncate: lost
        syncdir()                                                   # names: kept, renamed, unlinked, d
        write('noname', b'n' * 3000, sync=True)                     # data synced, name never: an orphan
        os.rename(os.path.join(mnt, 'renamed'), os.path.join(mnt, 'renamed2'))
        os.unlink(os.path.join(mnt, 'unlinked'))
        write('late', b'l' * 10, sync=True)
        ctl_ = Control(ctl)
        ctl_(cmd='cut', note='model check')
        ctl_.close()
        try:
            os.listdir(mnt)
            problems.append('the mount still answers after the cut')
        except OSError:
            pass
    finally:
        unmount(mnt, proc)
    listing = {os.path.relpath(os.path.join(d, f), disk): os.path.getsize(os.path.join(d, f))
               for d, _, fs in os.walk(disk) for f in fs}
    want = {'kept': 5000, 'renamed': 10, 'unlinked': 10, 'd/inner': 10}
    if listing != want:
        problems.append('durable tree %s, expected %s' % (listing, want))
    orphans = sorted(os.path.getsize(os.path.join(disk + '.objects', f)) for f in os.listdir(disk + '.objects'))
    if 3000 not in orphans:
        problems.append('the synced but unnamed file is not kept as an orphan inode (%s)' % orphans)
    if not any(e['op'] == 'cut' for e in read_log(log)):
        problems.append('no cut in the log')
    if not problems:
        shutil.rmtree(tdir, ignore_errors=True)
    return problems


def line(result):
    parts = []
    for name, o in result['outputs'].items():
        bits = [o.get('left') or '%s B' % o.get('size', '?')]
        if 'frames' in o:
            bits.append('%d frames' % o['frames'])
        if o.get('kind') == 'fragmented':
            bits.append('%d fragments (%d synced)' % (o['fragments'], o['synced_fragments']))
        elif o.get('kind') == 'regular':
            bits.append('regular')
        parts.append('%s: %s — %s: %s' % (name, ', '.join(bits), o['verdict'], o['why']))
    ci = result.get('cut_info') or {}
    hit = ''
    if ci.get('reason') == 'trigger':
        hit = ' [hit %s %s%s]' % (ci.get('when'), ci.get('op'), ' @%d' % ci['offset'] if 'offset' in ci else '')
    extra = (' (left %s)' % ', '.join(result['partials_left'])) if result.get('partials_left') else ''
    return '%2d %-4s %-9s %-48s cut: %s%s at %.2fs, reel %s | %s%s' % (
        result['trial'], result['verdict'], result['kind'], result['scenario'][:48], result['cut_plan'], hit,
        result['cut_time'], 'exited %s' % result['reel_exit'] if result['reel_exit'] is not None else 'killed',
        ' | '.join(parts), extra)


def setup_check(args):
    problems = []
    if not os.path.exists('/dev/fuse'):
        problems.append('/dev/fuse is missing')
    r = run([args.fs_python, '-c', 'import fusepy'])
    if r.returncode != 0:
        r = run([args.fs_python, '-c', 'import fuse; fuse.FUSE'])
        if r.returncode != 0:
            problems.append('%s cannot import fusepy (apt-get install python3-fusepy fuse3)' % args.fs_python)
    for tool in ('ffmpeg', 'ffprobe'):
        if not shutil.which(tool):
            problems.append(tool + ' is missing')
    if not (shutil.which('fusermount') or shutil.which('fusermount3') or os.geteuid() == 0):
        problems.append('fusermount is missing (apt-get install fuse3)')
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--reel', help='the reel binary (default: $REEL, .build/release/reel, .build/debug/reel, PATH)')
    parser.add_argument('--trials', type=int, default=34)
    parser.add_argument('--seed', type=int)
    parser.add_argument('--duration', type=int, default=4, help='--max-duration of the recordings (s)')
    parser.add_argument('--segments', type=int, default=3, help='segments of %d s in the segmented trials' % SEGMENT_SECONDS)
    parser.add_argument('--results', help='write the trials as JSON here')
    parser.add_argument('--fs-python', default='/usr/bin/python3', help='the python that has fusepy')
    parser.add_argument('--work', help='scratch folder (default: a new one under /tmp)')
    parser.add_argument('--keep', action='store_true', help='keep every trial folder (failed ones are always kept)')
    parser.add_argument('--only', help='run only scenarios containing this text')
    args = parser.parse_args()

    reel = find_reel(args.reel)
    problems = setup_check(args)
    if args.segments < 3:
        problems.append('--segments must be at least 3 (loop recording deletes one while a third is written)')
    if reel is None:
        problems.append('no reel binary (give --reel or set REEL)')
    if problems:
        print('power-cut test: cannot run: ' + '; '.join(problems), file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    rng = random.Random(seed)
    work = args.work or tempfile.mkdtemp(prefix='powercut-')
    os.makedirs(work, exist_ok=True)
    print('power-cut test: seed %d (rerun with --seed %d), reel %s, scratch %s' % (seed, seed, reel, work), flush=True)
    started = time.monotonic()

    source = os.path.join(work, 'source.mp4')
    r = run(['ffmpeg', '-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=352x288:rate=%d' % FPS,
             '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=48000', '-t', str(SOURCE_SECONDS),
             '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', source])
    if r.returncode != 0:
        print('cannot make the source: ' + r.stderr, file=sys.stderr)
        return 2
    runner = Runner(args, reel, work, source)
    info, _ = probe(source)
    runner.source_duration = float(info['format']['duration'])

    problems = model_self_check(runner, work)
    if problems:
        print('power-cut test: the filesystem model is wrong: ' + '; '.join(problems), file=sys.stderr)
        return 2
    print('model check: a strict POSIX disk after a cut (synced data kept, unsynced writes, truncates, renames, '
          'unlinks and names of unsynced folders lost): ok', flush=True)
    trials = plan_trials(rng, args.trials)
    if args.only:
        trials = [t for t in trials if args.only in t[1] or args.only == t[0]]
    results = []
    try:
        for number, (kind, name, opts) in enumerate(trials, 1):
            try:
                result = runner.trial(number, kind, name, dict(opts), rng)
            except Exception as e:  # a harness problem is a failure of the run, with the trial named
                result = {'trial': number, 'kind': kind, 'scenario': name, 'verdict': 'FAIL', 'outputs': {},
                          'error': repr(e), 'cut_plan': '', 'cut_time': 0, 'reel_exit': None}
                print('%2d FAIL %s %s: harness error %r' % (number, kind, name, e), flush=True)
                results.append(result)
                continue
            results.append(result)
            print(line(result), flush=True)
    finally:
        for d in os.listdir(work):
            mnt = os.path.join(work, d, 'mnt')
            if os.path.isdir(mnt) and is_mounted(mnt):
                unmount(mnt)
    elapsed = time.monotonic() - started
    failed = [r for r in results if r['verdict'] == 'FAIL']
    summary = {'seed': seed, 'trials': len(results), 'passed': len(results) - len(failed), 'failed': len(failed),
               'elapsed': round(elapsed, 1), 'failures': ['%d %s: %s' % (r['trial'], r['scenario'],
                                                                        '; '.join(o['why'] for o in r['outputs'].values()
                                                                                  if o['verdict'] == 'FAIL')
                                                                        or r.get('error', ''))
                                                          for r in failed]}
    print()
    for f in summary['failures']:
        print('FAILED: ' + f)
    print('power-cut: %d passed, %d failed (seed %d, %.0f s%s)'
          % (summary['passed'], summary['failed'], seed, elapsed,
             '; failed trials kept under %s' % work if failed else ''))
    print('%d passed, %d failed' % (summary['passed'], summary['failed']))
    if args.results:
        with open(args.results, 'w') as f:
            json.dump({'summary': summary, 'trials': results}, f, indent=1)
    if not failed and not args.keep and not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
