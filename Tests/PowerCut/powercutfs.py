#!/usr/bin/python3
"""powercutfs: a FUSE filesystem that models a power cut.

    /usr/bin/python3 powercutfs.py BACKING MOUNTPOINT [--control SOCK] [--log LOG.jsonl] [--lenient] ...

Two layers:

* the durable layer is a real directory, BACKING: after a cut it holds exactly what a disk with strict
  POSIX semantics could hold after the power went out. Each durable file is a hard link to an
  inode-like object in OBJECTS (default BACKING.objects, same filesystem), so data made durable by an
  fsync shows under every durable name of that inode, and an inode synced before any durable name
  reaches it stays unreachable (an orphan) until its folder is synced.
* the volatile layer lives in memory: every file's current content, every folder's current entries.
  Reads see the volatile layer (which starts as a copy of the durable one).

What makes what durable:

* fsync / fdatasync of a file: its data and size (written through to its object, then os.fsync).
* fsync of a folder (fsyncdir): that folder's entries (names created, renamed in or out, unlinked)
  become its durable entries. A file whose data was never synced appears in it with size 0.
* --lenient: every namespace operation (create, mkdir, rename, unlink, link, rmdir, symlink) is durable
  at once, as if its folders were synced right after it (data still needs fsync: this is the
  "rename reached the disk, the data did not" zero-length-file model).
* --writeback random: at a cut, each unsynced dirty 4 KiB page of each file independently reaches
  the disk or not (with its latest content; the durable size grows to cover the pages that made it).
  Default none: all unsynced data is lost.

At a cut the volatile layer is discarded and every later operation fails with EIO (the machine is
dead); the durable tree in BACKING is final. Unmount as usual (fusermount -u MOUNTPOINT).

Control (unix socket given by --control; one JSON object per line, one JSON reply per line):

  {"cmd": "cut"}                          cut now
  {"cmd": "arm", "trigger": {...}}        cut when the trigger fires (several may be armed; the first wins)
  {"cmd": "disarm"}                       forget the armed triggers
  {"cmd": "status"}                       {"cut": bool, "cut_info": {...}, "seq": N, "durable": {...}}
  {"cmd": "durable"}                      the durable tree: {path: size}

SIGUSR1 to the filesystem process also cuts now.

A trigger (all keys optional but op):

  op         write | fsync | fsyncdir | rename | unlink | create | mkdir | truncate | fallocate |
             link | rmdir | symlink | any       (fsync matches fsync and fdatasync)
  path       fnmatch pattern for the operation's path (rename: either name); the basename is tried too
  min_offset, max_offset   write/truncate/fallocate: offset (truncate: new size) in [min, max]
  covers     write: the write's range covers this byte offset
  nth        fire at the nth matching operation (default 1), counted from arming
  when       before (default: the operation is not done) | after (done, durable effects included,
             then cut) | during (write: a random prefix of it is applied; fsync: a random subset of
             the dirty pages reaches the object; fsyncdir: a random subset of the entry changes)
  after      a trigger spec (op, path, offsets, nth): this trigger counts only once an operation matching
             it has happened (e.g. the writes after the truncate that starts a finalization)
  order      fsync "during": random (default: each dirty page independently) or prefix (the dirty pages in
             ascending order, interrupted after a random number of them, as an elevator writes them)
  sectors    fsync "during": instead, the in-place updates below the old durable end reach the disk and,
             of the data appended past it, everything up to the n-th 512-byte sector boundary after it
  seed       random seed for "during"

Log (--log, JSON lines, flushed per line): every write, truncate, fallocate, fsync (with the durable size
and durable names after it), fsyncdir (with the names it made durable or removed), create, mkdir,
rename, unlink, link, rmdir, the cut (its reason and the durable tree) and the unmount.
"""
import argparse
import ctypes
import errno
import fnmatch
import json
import os
import random
import shutil
import signal
import socket
import stat
import threading
import time

try:
    import fusepy as fuse  # Debian's python3-fusepy
except ImportError:  # pragma: no cover - pip's fusepy installs as "fuse"
    import fuse

PAGE = 4096
ROOT = 1


def _extended_operations():
    """fusepy's fuse_operations stops at ioctl; libfuse 2.9 also has poll, write_buf, read_buf, flock and
    fallocate. Recording writers reserve space with fallocate, so it is added here."""
    fields = list(fuse.fuse_operations._fields_)
    fields += [
        ('poll', ctypes.c_void_p),
        ('write_buf', ctypes.c_void_p),
        ('read_buf', ctypes.c_void_p),
        ('flock', ctypes.c_void_p),
        ('fallocate', ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_char_p, ctypes.c_int, fuse.c_off_t, fuse.c_off_t,
                                       ctypes.POINTER(fuse.fuse_file_info))),
    ]
    return type('fuse_operations_ext', (ctypes.Structure,), {'_fields_': fields})


class FUSEWithFallocate(fuse.FUSE):
    def fallocate(self, path, mode, offset, length, fip):
        fh = fip.contents.fh if fip else None
        return self.operations('fallocate', self._decode_optional_path(path), mode, offset, length, fh)


class Inode:
    def __init__(self, ino, kind, mode):
        self.ino = ino
        self.kind = kind              # 'f', 'd' or 'l'
        self.mode = mode
        self.uid = os.getuid()
        self.gid = os.getgid()
        now = time.time_ns()
        self.atime = self.mtime = self.ctime = now
        # file
        self.data = bytearray()       # the volatile content
        self.dirty = set()            # pages written since the last sync
        self.durable_size = None      # None: no durable object yet
        # folder
        self.entries = {}             # volatile: name -> ino
        self.dentries = {}            # durable: name -> ino
        # symlink
        self.target = None


class Dead(Exception):
    pass


class PowerCutFS(fuse.Operations):
    use_ns = True

    def __init__(self, backing, objects, log_path, lenient=False, writeback='none', real_fsync=True, seed=None):
        self.backing = os.path.abspath(backing)
        self.objects = os.path.abspath(objects)
        self.lenient = lenient
        self.writeback = writeback
        self.real_fsync = real_fsync
        self.rng = random.Random(seed)
        self.mutex = threading.RLock()
        self.dead = False
        self.cut_info = None
        self.seq = 0
        self.t0 = time.monotonic()
        self.log_file = open(log_path, 'a', buffering=1) if log_path else None
        self.inodes = {}
        self.next_ino = ROOT
        self.handles = {}
        self.next_fh = 1
        self.triggers = []
        self.durable_paths = {}       # ino -> [durable paths]
        os.makedirs(self.objects, exist_ok=True)
        for name in os.listdir(self.objects):
            if name.startswith('ino-'):
                os.unlink(os.path.join(self.objects, name))
        self._load()
        self._materialize()
        self._log('mount', backing=self.backing, lenient=lenient, writeback=writeback,
                  durable=self._durable_listing())

    # ----- the durable layer -------------------------------------------------------------------------------

    def _new_inode(self, kind, mode):
        node = Inode(self.next_ino, kind, mode)
        self.inodes[node.ino] = node
        self.next_ino += 1
        return node

    def _object(self, node):
        return os.path.join(self.objects, 'ino-%d' % node.ino)

    def _load(self):
        """Builds both layers from what BACKING holds (a previous run's disk, or files a test put there)."""
        root = self._new_inode('d', stat.S_IFDIR | 0o755)
        by_real_inode = {}

        def walk(real_dir, node):
            for name in sorted(os.listdir(real_dir)):
                full = os.path.join(real_dir, name)
                st = os.lstat(full)
                if stat.S_ISDIR(st.st_mode):
                    child = self._new_inode('d', st.st_mode)
                    walk(full, child)
                elif stat.S_ISLNK(st.st_mode):
                    child = self._new_inode('l', stat.S_IFLNK | 0o777)
                    child.target = os.readlink(full)
                elif stat.S_ISREG(st.st_mode):
                    key = (st.st_dev, st.st_ino)
                    child = by_real_inode.get(key)
                    if child is None:
                        child = self._new_inode('f', st.st_mode)
                        os.link(full, self._object(child))
                        with open(full, 'rb') as f:
                            child.data = bytearray(f.read())
                        child.durable_size = len(child.data)
                        by_real_inode[key] = child
                else:
                    continue
                node.entries[name] = child.ino
                node.dentries[name] = child.ino

        walk(self.backing, root)

    def _ensure_object(self, node):
        if node.durable_size is None:
            with open(self._object(node), 'wb'):
                pass
            os.chmod(self._object(node), stat.S_IMODE(node.mode))
            node.durable_size = 0

    def _materialize(self):
        """Makes BACKING the durable tree: the root's durable entries, recursively, files as hard links to
        their objects."""
        desired = {}
        paths = {}

        def walk(dino, rel, seen):
            for name, ino in self.inodes[dino].dentries.items():
                path = name if not rel else rel + '/' + name
                node = self.inodes[ino]
                if node.kind == 'd':
                    desired[path] = ('d', None)
                    if ino not in seen:
                        walk(ino, path, seen | {ino})
                elif node.kind == 'f':
                    self._ensure_object(node)
                    desired[path] = ('f', os.stat(self._object(node)).st_ino, node)
                    paths.setdefault(ino, []).append('/' + path)
                else:
                    desired[path] = ('l', node.target)

        walk(ROOT, '', {ROOT})
        for dirpath, dirnames, filenames in os.walk(self.backing, topdown=False):
            for name in filenames + dirnames:
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, self.backing)
                want = desired.get(rel)
                st = os.lstat(full)
                if want is not None:
                    if want[0] == 'd' and stat.S_ISDIR(st.st_mode):
                        continue
                    if want[0] == 'f' and stat.S_ISREG(st.st_mode) and st.st_ino == want[1]:
                        continue
                    if want[0] == 'l' and stat.S_ISLNK(st.st_mode) and os.readlink(full) == want[1]:
                        continue
                if stat.S_ISDIR(st.st_mode) and not stat.S_ISLNK(st.st_mode):
                    shutil.rmtree(full)
                else:
                    os.unlink(full)
        for rel in sorted(desired, key=lambda r: r.count('/')):
            full = os.path.join(self.backing, rel)
            want = desired[rel]
            if os.path.lexists(full):
                continue
            if want[0] == 'd':
                os.mkdir(full)
            elif want[0] == 'f':
                os.link(self._object(want[2]), full)
            else:
                os.symlink(want[1], full)
        self.durable_paths = paths

    def _durable_listing(self):
        out = {}
        for dirpath, dirnames, filenames in os.walk(self.backing):
            for name in filenames:
                full = os.path.join(dirpath, name)
                out['/' + os.path.relpath(full, self.backing)] = os.lstat(full).st_size
            for name in dirnames:
                out['/' + os.path.relpath(os.path.join(dirpath, name), self.backing) + '/'] = 0
        return out

    def _write_pages(self, node, pages, size):
        """Writes the given pages of the volatile content to the object and sets its size."""
        self._ensure_object(node)
        fd = os.open(self._object(node), os.O_RDWR)
        try:
            os.ftruncate(fd, size)
            for page in sorted(pages):
                start = page * PAGE
                if page < 0 or start >= size:
                    continue
                os.pwrite(fd, bytes(node.data[start:min(size, start + PAGE, len(node.data))]), start)
            if self.real_fsync:
                os.fsync(fd)
        finally:
            os.close(fd)
        node.durable_size = size

    def _sync_file(self, node):
        if node.kind != 'f':
            return
        self._write_pages(node, node.dirty, len(node.data))
        node.dirty.clear()

    def _sync_dir(self, node, subset=None):
        """Makes a folder's entries durable (all, or the changed names in subset)."""
        if node.kind != 'd':
            return [], []
        added = [n for n, i in node.entries.items() if node.dentries.get(n) != i]
        removed = [n for n in node.dentries if n not in node.entries]
        if subset is not None:
            added = [n for n in added if n in subset]
            removed = [n for n in removed if n in subset]
        for name in added:
            node.dentries[name] = node.entries[name]
        for name in removed:
            del node.dentries[name]
        if added or removed:
            self._materialize()
        return added, removed

    # ----- the cut -----------------------------------------------------------------------------------------

    def cut(self, reason, **info):
        with self.mutex:
            if self.dead:
                return
            written_back = {}
            if self.writeback == 'random':
                for node in self.inodes.values():
                    if node.kind != 'f' or not node.dirty:
                        continue
                    pages = {p for p in node.dirty if p >= 0 and self.rng.random() < 0.5}
                    if not pages:
                        continue
                    base = node.durable_size or 0
                    size = max([base] + [min(len(node.data), (p + 1) * PAGE) for p in pages])
                    size = min(size, max(base, len(node.data)))
                    self._write_pages(node, pages, size)
                    written_back[node.ino] = {'pages': len(pages), 'of': len(node.dirty), 'size': size}
            self.dead = True
            for node in self.inodes.values():
                node.data = bytearray()
                node.dirty = set()
                node.entries = {}
            self.cut_info = dict(reason=reason, after_seq=self.seq, t=round(time.monotonic() - self.t0, 4), **info)
            if written_back:
                self.cut_info['written_back'] = {','.join(self.durable_paths.get(i, ['#%d' % i])): v
                                                 for i, v in written_back.items()}
            self._log('cut', **self.cut_info, durable=self._durable_listing())

    def _check_alive(self):
        if self.dead:
            raise fuse.FuseOSError(errno.EIO)

    # ----- triggers ----------------------------------------------------------------------------------------

    @staticmethod
    def _matches(spec, op, paths, offset=None, size=None):
        want = spec.get('op', 'any')
        if want != 'any' and want != op and not (want == 'fsync' and op == 'fdatasync'):
            return False
        pattern = spec.get('path')
        if pattern is not None:
            if not any(p is not None and (fnmatch.fnmatchcase(p, pattern) or
                                          fnmatch.fnmatchcase(os.path.basename(p), pattern)) for p in paths):
                return False
        if offset is not None:
            if 'min_offset' in spec and offset < spec['min_offset']:
                return False
            if 'max_offset' in spec and offset > spec['max_offset']:
                return False
            if 'covers' in spec and not (offset <= spec['covers'] < offset + (size or 0)):
                return False
        elif any(k in spec for k in ('min_offset', 'max_offset', 'covers')):
            return False
        return True

    def _trigger(self, op, paths, offset=None, size=None):
        """Counts this operation against the armed triggers; returns the one that fires, if any."""
        fired = None
        for trig in self.triggers:
            spec = trig['spec']
            pre = spec.get('after')
            if pre is not None and trig['pre_count'] < pre.get('nth', 1):
                if self._matches(pre, op, paths, offset, size):
                    trig['pre_count'] += 1
                continue
            if self._matches(spec, op, paths, offset, size):
                trig['count'] += 1
                if trig['count'] >= spec.get('nth', 1) and fired is None:
                    fired = trig
        if fired is not None:
            self.triggers.remove(fired)
        return fired

    def _fire(self, trig, op, paths, **info):
        spec = trig['spec']
        self.cut('trigger', trigger=spec, op=op, paths=[p for p in paths if p], when=spec.get('when', 'before'),
                 **info)

    # ----- log ---------------------------------------------------------------------------------------------

    def _log(self, _op, **fields):
        self.seq += 1
        if self.log_file is None:
            return
        entry = {'seq': self.seq, 't': round(time.monotonic() - self.t0, 4), 'op': _op}
        if 'op' in fields:
            fields['cut_op'] = fields.pop('op')
        entry.update(fields)
        self.log_file.write(json.dumps(entry) + '\n')

    # ----- namespace helpers -------------------------------------------------------------------------------

    def _resolve(self, path):
        node = self.inodes[ROOT]
        for part in [p for p in path.split('/') if p]:
            if node.kind != 'd':
                raise fuse.FuseOSError(errno.ENOTDIR)
            ino = node.entries.get(part)
            if ino is None:
                raise fuse.FuseOSError(errno.ENOENT)
            node = self.inodes[ino]
        return node

    def _parent(self, path):
        head, name = os.path.split(path.rstrip('/'))
        parent = self._resolve(head or '/')
        if parent.kind != 'd':
            raise fuse.FuseOSError(errno.ENOTDIR)
        return parent, name

    def _node(self, path, fh):
        if fh is not None and fh in self.handles:
            return self.inodes[self.handles[fh]]
        if path is None:
            raise fuse.FuseOSError(errno.EBADF)
        return self._resolve(path)

    def _nlink(self, node):
        if node.kind == 'd':
            return 2 + sum(1 for i in node.entries.values() if self.inodes[i].kind == 'd')
        return max(1, sum(1 for d in self.inodes.values() if d.kind == 'd'
                          for i in d.entries.values() if i == node.ino))

    def _namespace_done(self, *dirs):
        if self.lenient:
            for d in dirs:
                self._sync_dir(d)

    def _durable_names(self, node):
        return self.durable_paths.get(node.ino, [])

    # ----- FUSE operations ---------------------------------------------------------------------------------

    def getattr(self, path, fh=None):
        with self.mutex:
            self._check_alive()
            node = self._node(path, fh)
            size = len(node.data) if node.kind == 'f' else (len(node.target) if node.kind == 'l' else 4096)
            return {'st_mode': node.mode, 'st_ino': node.ino, 'st_nlink': self._nlink(node), 'st_uid': node.uid,
                    'st_gid': node.gid, 'st_size': size, 'st_blocks': (size + 511) // 512, 'st_blksize': PAGE,
                    'st_atime': node.atime, 'st_mtime': node.mtime, 'st_ctime': node.ctime}

    def access(self, path, amode):
        with self.mutex:
            self._check_alive()
            self._resolve(path)
            return 0

    def statfs(self, path):
        with self.mutex:
            self._check_alive()
            st = os.statvfs(self.backing)
            return {k: getattr(st, k) for k in ('f_bsize', 'f_frsize', 'f_blocks', 'f_bfree', 'f_bavail', 'f_files',
                                               'f_ffree', 'f_favail', 'f_flag', 'f_namemax')}

    def readdir(self, path, fh):
        with self.mutex:
            self._check_alive()
            node = self._resolve(path)
            if node.kind != 'd':
                raise fuse.FuseOSError(errno.ENOTDIR)
            return ['.', '..'] + list(node.entries)

    def opendir(self, path):
        with self.mutex:
            self._check_alive()
            node = self._resolve(path)
            if node.kind != 'd':
                raise fuse.FuseOSError(errno.ENOTDIR)
            return 0

    def releasedir(self, path, fh):
        return 0

    def readlink(self, path):
        with self.mutex:
            self._check_alive()
            node = self._resolve(path)
            if node.kind != 'l':
                raise fuse.FuseOSError(errno.EINVAL)
            return node.target

    def _add_entry(self, op, path, kind, mode, fields=None):
        parent, name = self._parent(path)
        if name in parent.entries:
            raise fuse.FuseOSError(errno.EEXIST)
        trig = self._trigger(op, [path])
        when = trig['spec'].get('when', 'before') if trig else None
        if when == 'before':
            self._fire(trig, op, [path])
            raise fuse.FuseOSError(errno.EIO)
        node = self._new_inode(kind, mode)
        if fields:
            for k, v in fields.items():
                setattr(node, k, v)
        parent.entries[name] = node.ino
        parent.mtime = parent.ctime = time.time_ns()
        self._namespace_done(parent)
        self._log(op, path=path, ino=node.ino, durable=self.lenient)
        if trig:
            self._fire(trig, op, [path])
            raise fuse.FuseOSError(errno.EIO)
        return node

    def create(self, path, mode, fi=None):
        with self.mutex:
            self._check_alive()
            node = self._add_entry('create', path, 'f', stat.S_IFREG | stat.S_IMODE(mode))
            fh = self.next_fh
            self.next_fh += 1
            self.handles[fh] = node.ino
            return fh

    def mknod(self, path, mode, dev):
        with self.mutex:
            self._check_alive()
            if not stat.S_ISREG(mode):
                raise fuse.FuseOSError(errno.EPERM)
            self._add_entry('create', path, 'f', stat.S_IFREG | stat.S_IMODE(mode))
            return 0

    def mkdir(self, path, mode):
        with self.mutex:
            self._check_alive()
            self._add_entry('mkdir', path, 'd', stat.S_IFDIR | stat.S_IMODE(mode))
            return 0

    def symlink(self, target, source):
        with self.mutex:
            self._check_alive()
            self._add_entry('symlink', target, 'l', stat.S_IFLNK | 0o777, {'target': source})
            return 0

    def open(self, path, flags):
        with self.mutex:
            self._check_alive()
            node = self._resolve(path)
            if node.kind == 'd' and (flags & os.O_ACCMODE) != os.O_RDONLY:
                raise fuse.FuseOSError(errno.EISDIR)
            fh = self.next_fh
            self.next_fh += 1
            self.handles[fh] = node.ino
            return fh

    def release(self, path, fh):
        with self.mutex:
            self.handles.pop(fh, None)
            return 0

    def flush(self, path, fh):
        with self.mutex:
            self._check_alive()
            return 0

    def read(self, path, size, offset, fh):
        with self.mutex:
            self._check_alive()
            node = self._node(path, fh)
            if node.kind != 'f':
                raise fuse.FuseOSError(errno.EISDIR)
            return bytes(node.data[offset:offset + size])

    def _mark_dirty(self, node, start, end):
        if end > start:
            node.dirty.update(range(start // PAGE, (end - 1) // PAGE + 1))

    def _apply_write(self, node, data, offset):
        end = offset + len(data)
        if offset > len(node.data):
            old = len(node.data)
            node.data.extend(b'\0' * (offset - old))
            self._mark_dirty(node, old, offset)
        node.data[offset:end] = data
        self._mark_dirty(node, offset, end)
        node.mtime = node.ctime = time.time_ns()

    def write(self, path, data, offset, fh):
        with self.mutex:
            self._check_alive()
            node = self._node(path, fh)
            if node.kind != 'f':
                raise fuse.FuseOSError(errno.EISDIR)
            names = [path] + self._durable_names(node)
            trig = self._trigger('write', names, offset, len(data))
            when = trig['spec'].get('when', 'before') if trig else None
            if when == 'before':
                self._fire(trig, 'write', names, offset=offset, size=len(data))
                raise fuse.FuseOSError(errno.EIO)
            if when == 'during':
                rng = random.Random(trig['spec'].get('seed', self.rng.random()))
                part = rng.randrange(0, len(data)) if data else 0
                self._apply_write(node, data[:part], offset)
                self._log('write', path=path, ino=node.ino, offset=offset, size=part, torn_of=len(data))
                self._fire(trig, 'write', names, offset=offset, size=len(data), applied=part)
                raise fuse.FuseOSError(errno.EIO)
            self._apply_write(node, data, offset)
            self._log('write', path=path, ino=node.ino, offset=offset, size=len(data))
            if trig:
                self._fire(trig, 'write', names, offset=offset, size=len(data))
                raise fuse.FuseOSError(errno.EIO)
            return len(data)

    def truncate(self, path, length, fh=None):
        with self.mutex:
            self._check_alive()
            node = self._node(path, fh)
            if node.kind != 'f':
                raise fuse.FuseOSError(errno.EISDIR)
            names = [path] + self._durable_names(node)
            trig = self._trigger('truncate', names, length, 0)
            if trig and trig['spec'].get('when', 'before') == 'before':
                self._fire(trig, 'truncate', names, size=length)
                raise fuse.FuseOSError(errno.EIO)
            old = len(node.data)
            if length < old:
                del node.data[length:]
                node.dirty = {p for p in node.dirty if p * PAGE < length}
                if length % PAGE:
                    node.dirty.add(length // PAGE)
            elif length > old:
                node.data.extend(b'\0' * (length - old))
                self._mark_dirty(node, old, length)
            if length != old or node.durable_size != length:
                node.dirty.add(-1)  # the size itself is unsynced (page -1 is never written)
            node.mtime = node.ctime = time.time_ns()
            self._log('truncate', path=path, ino=node.ino, size=length, old_size=old)
            if trig:
                self._fire(trig, 'truncate', names, size=length)
                raise fuse.FuseOSError(errno.EIO)
            return 0

    def fallocate(self, path, mode, offset, length, fh):
        with self.mutex:
            self._check_alive()
            node = self._node(path, fh)
            if node.kind != 'f':
                raise fuse.FuseOSError(errno.EISDIR)
            names = [path] + self._durable_names(node)
            trig = self._trigger('fallocate', names, offset, length)
            if trig and trig['spec'].get('when', 'before') == 'before':
                self._fire(trig, 'fallocate', names, offset=offset, size=length)
                raise fuse.FuseOSError(errno.EIO)
            keep_size = bool(mode & 0x01)
            if mode & ~0x01:
                raise fuse.FuseOSError(errno.EOPNOTSUPP)
            if not keep_size and offset + length > len(node.data):
                old = len(node.data)
                node.data.extend(b'\0' * (offset + length - old))
                self._mark_dirty(node, old, offset + length)
            self._log('fallocate', path=path, ino=node.ino, mode=mode, offset=offset, length=length)
            if trig:
                self._fire(trig, 'fallocate', names, offset=offset, size=length)
                raise fuse.FuseOSError(errno.EIO)
            return 0

    def fsync(self, path, datasync, fh):
        with self.mutex:
            self._check_alive()
            node = self._node(path, fh)
            op = 'fdatasync' if datasync else 'fsync'
            names = [path] + self._durable_names(node)
            trig = self._trigger(op, names)
            when = trig['spec'].get('when', 'before') if trig else None
            if when == 'before':
                self._fire(trig, op, names)
                raise fuse.FuseOSError(errno.EIO)
            if when == 'during' and node.kind == 'f':
                rng = random.Random(trig['spec'].get('seed', self.rng.random()))
                pages = sorted(p for p in node.dirty if p >= 0)
                if 'sectors' in trig['spec']:
                    # the in-place updates below the old durable end reached the disk, and of the appended
                    # data only up to the n-th 512-byte sector boundary past that end
                    base = node.durable_size or 0
                    end = min(len(node.data), (base // 512 + trig['spec']['sectors']) * 512)
                    self._ensure_object(node)
                    fd = os.open(self._object(node), os.O_RDWR)
                    try:
                        os.ftruncate(fd, max(base, end))
                        for p in pages:
                            lo, hi = p * PAGE, min((p + 1) * PAGE, base, len(node.data))
                            if lo < hi:
                                os.pwrite(fd, bytes(node.data[lo:hi]), lo)
                        if end > base:
                            os.pwrite(fd, bytes(node.data[base:end]), base)
                    finally:
                        os.close(fd)
                    node.durable_size = max(base, end)
                    self._log(op, path=path, ino=node.ino, partial=True, sectors=trig['spec']['sectors'],
                              durable_size=node.durable_size, durable_names=self._durable_names(node))
                    self._fire(trig, op, names, durable_size=node.durable_size)
                    raise fuse.FuseOSError(errno.EIO)
                if trig['spec'].get('order') == 'prefix':
                    # write-back in ascending order, interrupted: the first n dirty pages, 1 <= n < all
                    subset = set(pages[:rng.randint(1, len(pages) - 1)]) if len(pages) > 1 else set()
                else:
                    subset = {p for p in pages if rng.random() < 0.5}
                    if len(subset) == len(pages) and pages:
                        subset.discard(rng.choice(pages))
                base = node.durable_size or 0
                # the size reaches the disk with the data blocks beyond the old end, if any did
                size = max([base] + [min(len(node.data), (p + 1) * PAGE) for p in subset])
                size = min(size, max(base, len(node.data)))
                self._write_pages(node, subset, size)
                node.dirty -= subset
                self._log(op, path=path, ino=node.ino, partial=True, pages=len(subset), of=len(pages),
                          durable_size=node.durable_size, durable_names=self._durable_names(node))
                self._fire(trig, op, names, pages=len(subset), of=len(pages))
                raise fuse.FuseOSError(errno.EIO)
            if node.kind == 'f':
                self._sync_file(node)
                self._log(op, path=path, ino=node.ino, size=len(node.data), durable_size=node.durable_size,
                          durable_names=self._durable_names(node))
            else:
                added, removed = self._sync_dir(node)
                self._log(op, path=path, ino=node.ino, dir=True, added=added, removed=removed)
            if trig:
                self._fire(trig, op, names)
                raise fuse.FuseOSError(errno.EIO)
            return 0

    def fsyncdir(self, path, datasync, fh):
        with self.mutex:
            self._check_alive()
            node = self._resolve(path)
            trig = self._trigger('fsyncdir', [path])
            when = trig['spec'].get('when', 'before') if trig else None
            if when == 'before':
                self._fire(trig, 'fsyncdir', [path])
                raise fuse.FuseOSError(errno.EIO)
            subset = None
            if when == 'during':
                rng = random.Random(trig['spec'].get('seed', self.rng.random()))
                changed = [n for n, i in node.entries.items() if node.dentries.get(n) != i]
                changed += [n for n in node.dentries if n not in node.entries]
                subset = {n for n in changed if rng.random() < 0.5}
            added, removed = self._sync_dir(node, subset)
            self._log('fsyncdir', path=path, ino=node.ino, added=added, removed=removed, partial=subset is not None,
                      durable=self._durable_listing())
            if trig:
                self._fire(trig, 'fsyncdir', [path], added=added, removed=removed)
                raise fuse.FuseOSError(errno.EIO)
            return 0

    def rename(self, old, new):
        with self.mutex:
            self._check_alive()
            oparent, oname = self._parent(old)
            nparent, nname = self._parent(new)
            ino = oparent.entries.get(oname)
            if ino is None:
                raise fuse.FuseOSError(errno.ENOENT)
            node = self.inodes[ino]
            replaced = nparent.entries.get(nname)
            if replaced is not None:
                target = self.inodes[replaced]
                if target.kind == 'd' and node.kind != 'd':
                    raise fuse.FuseOSError(errno.EISDIR)
                if target.kind == 'd' and target.entries:
                    raise fuse.FuseOSError(errno.ENOTEMPTY)
                if node.kind == 'd' and target.kind != 'd':
                    raise fuse.FuseOSError(errno.ENOTDIR)
            trig = self._trigger('rename', [old, new])
            if trig and trig['spec'].get('when', 'before') == 'before':
                self._fire(trig, 'rename', [old, new])
                raise fuse.FuseOSError(errno.EIO)
            if old != new:
                del oparent.entries[oname]
                nparent.entries[nname] = ino
            now = time.time_ns()
            oparent.mtime = oparent.ctime = nparent.mtime = nparent.ctime = now
            self._namespace_done(oparent, nparent)
            self._log('rename', old=old, new=new, ino=ino, replaced=replaced, durable=self.lenient,
                      durable_size=node.durable_size if node.kind == 'f' else None,
                      unsynced_data=bool(node.dirty) if node.kind == 'f' else False)
            if trig:
                self._fire(trig, 'rename', [old, new])
                raise fuse.FuseOSError(errno.EIO)
            return 0

    def link(self, target, source):
        with self.mutex:
            self._check_alive()
            node = self._resolve(source)
            if node.kind == 'd':
                raise fuse.FuseOSError(errno.EPERM)
            parent, name = self._parent(target)
            if name in parent.entries:
                raise fuse.FuseOSError(errno.EEXIST)
            trig = self._trigger('link', [source, target])
            if trig and trig['spec'].get('when', 'before') == 'before':
                self._fire(trig, 'link', [source, target])
                raise fuse.FuseOSError(errno.EIO)
            parent.entries[name] = node.ino
            self._namespace_done(parent)
            self._log('link', path=target, source=source, ino=node.ino, durable=self.lenient)
            if trig:
                self._fire(trig, 'link', [source, target])
                raise fuse.FuseOSError(errno.EIO)
            return 0

    def _remove(self, op, path, want_dir):
        parent, name = self._parent(path)
        ino = parent.entries.get(name)
        if ino is None:
            raise fuse.FuseOSError(errno.ENOENT)
        node = self.inodes[ino]
        if want_dir and node.kind != 'd':
            raise fuse.FuseOSError(errno.ENOTDIR)
        if not want_dir and node.kind == 'd':
            raise fuse.FuseOSError(errno.EISDIR)
        if want_dir and node.entries:
            raise fuse.FuseOSError(errno.ENOTEMPTY)
        trig = self._trigger(op, [path])
        if trig and trig['spec'].get('when', 'before') == 'before':
            self._fire(trig, op, [path])
            raise fuse.FuseOSError(errno.EIO)
        del parent.entries[name]
        parent.mtime = parent.ctime = time.time_ns()
        self._namespace_done(parent)
        self._log(op, path=path, ino=ino, durable=self.lenient)
        if trig:
            self._fire(trig, op, [path])
            raise fuse.FuseOSError(errno.EIO)
        return 0

    def unlink(self, path):
        with self.mutex:
            self._check_alive()
            return self._remove('unlink', path, False)

    def rmdir(self, path):
        with self.mutex:
            self._check_alive()
            return self._remove('rmdir', path, True)

    def chmod(self, path, mode):
        with self.mutex:
            self._check_alive()
            node = self._resolve(path)
            node.mode = (node.mode & ~0o7777) | (mode & 0o7777)
            node.ctime = time.time_ns()
            return 0

    def chown(self, path, uid, gid):
        with self.mutex:
            self._check_alive()
            node = self._resolve(path)
            if uid != -1:
                node.uid = uid
            if gid != -1:
                node.gid = gid
            return 0

    def utimens(self, path, times=None):
        with self.mutex:
            self._check_alive()
            node = self._resolve(path)
            now = time.time_ns()
            node.atime, node.mtime = times if times else (now, now)
            return 0

    def destroy(self, path):
        with self.mutex:
            self._log('unmount', cut=self.dead, durable=self._durable_listing())
            if self.log_file:
                self.log_file.close()
                self.log_file = None

    # ----- control -----------------------------------------------------------------------------------------

    def control(self, request):
        cmd = request.get('cmd')
        with self.mutex:
            if cmd == 'cut':
                self.cut('command', note=request.get('note'))
                return {'ok': True, 'cut_info': self.cut_info}
            if cmd == 'arm':
                spec = request['trigger']
                self.triggers.append({'spec': spec, 'count': 0, 'pre_count': 0})
                self._log('arm', trigger=spec)
                return {'ok': True}
            if cmd == 'disarm':
                self.triggers = []
                return {'ok': True}
            if cmd == 'status':
                return {'ok': True, 'cut': self.dead, 'cut_info': self.cut_info, 'seq': self.seq,
                        'armed': [t['spec'] for t in self.triggers]}
            if cmd == 'durable':
                return {'ok': True, 'durable': self._durable_listing()}
        return {'ok': False, 'error': 'unknown command %r' % cmd}


def serve_control(fs, path):
    if os.path.exists(path):
        os.unlink(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)

    def client(conn):
        with conn:
            f = conn.makefile('rwb')
            for line in f:
                try:
                    reply = fs.control(json.loads(line))
                except Exception as e:  # a bad request must not take the filesystem down
                    reply = {'ok': False, 'error': repr(e)}
                f.write((json.dumps(reply) + '\n').encode())
                f.flush()

    def accept():
        while True:
            conn, _ = server.accept()
            threading.Thread(target=client, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('backing')
    parser.add_argument('mountpoint')
    parser.add_argument('--objects', help='inode objects (default BACKING.objects; same filesystem as BACKING)')
    parser.add_argument('--control', help='unix socket for control commands')
    parser.add_argument('--log', help='JSON-lines log of the operations')
    parser.add_argument('--lenient', action='store_true', help='namespace operations are durable at once')
    parser.add_argument('--writeback', choices=['none', 'random'], default='none',
                        help='at a cut: unsynced data lost (none) or a random subset of dirty pages kept')
    parser.add_argument('--no-real-fsync', action='store_true', help='skip os.fsync on the backing objects')
    parser.add_argument('--seed', type=int)
    parser.add_argument('--debug', action='store_true')
    args = parser.parse_args()

    backing = os.path.abspath(args.backing)
    objects = args.objects or backing.rstrip('/') + '.objects'
    fs = PowerCutFS(backing, objects, args.log, lenient=args.lenient, writeback=args.writeback,
                    real_fsync=not args.no_real_fsync, seed=args.seed)

    # SIGUSR1 cuts: libfuse's threads and the main thread (blocked in C) never run Python signal handlers,
    # so the signal is blocked everywhere and taken by a thread that waits for it.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})

    def wait_signal():
        while True:
            signal.sigwait({signal.SIGUSR1})
            fs.cut('SIGUSR1')

    threading.Thread(target=wait_signal, daemon=True).start()
    if args.control:
        serve_control(fs, args.control)

    fuse.fuse_operations = _extended_operations()
    FUSEWithFallocate(fs, args.mountpoint, foreground=True, debug=args.debug, fsname='powercutfs',
                      subtype='powercutfs', big_writes=True, max_write=131072, hard_remove=True, use_ino=True,
                      attr_timeout=0, entry_timeout=0, negative_timeout=0)


if __name__ == '__main__':
    main()
