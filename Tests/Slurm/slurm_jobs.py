"""The Slurm test's job file: 48 transcode, grab and record jobs, and what each must leave behind."""

from slurm_common import HEAVY_SECONDS, LAVFI_AUDIO, LAVFI_VIDEO, SHARDS, SOURCE_SECONDS


def make_jobs(src, big):
    """48 jobs, in shard order: job i (1-based) runs in shard ((i - 1) % SHARDS) + 1. Returns the job file's
    `jobs` list and, per job, what its outputs must be: {path: ("movie", seconds) or ("jpg"|"png", None)}."""
    # The third job of every shard is a heavy transcode; shard 2's (the one cancelled in phase 2 and whose node
    # dies in phase 3) is the heaviest: 720p from 640x480, ~5 s alone on one core. Two jobs before it are
    # finished when it is cut short, for the re-run to skip.
    heavy = [{"name": f"heavy{k}", "type": "transcode", "input": big, "preset": preset,
              "output": "out/{name}-{preset}.mov"}
             for k, preset in enumerate(["640x480", "720p", "960x540", "640x480"], 1)]
    small_presets = ["low", "352x288", "medium", "low", "352x288", "640x480"]
    grabs = [(0, "jpg"), (0.5, "png"), (1.5, "jpg"), (2.5, "png"), (3.9, "jpg"), (1, "png"), (2, "jpg"),
             (3, "png"), (0.25, "jpg"), (3.5, "png"), (1.25, "jpg"), (2.75, "png")]
    records = [("low", 1), ("352x288", 2), ("low", 2), ("352x288", 1), ("low", 1.5), ("medium", 1),
               ("low", 2), ("352x288", 1.5), ("low", 1), ("352x288", 2), ("low", 1.5), ("352x288", 1),
               ("low", 2), ("low", 1)]
    transcodes = []
    for k in range(18):
        job = {"name": f"t{k + 1}", "type": "transcode", "input": src,
               "preset": small_presets[k % len(small_presets)], "output": "out/{name}-{preset}.mov"}
        if k % 6 == 0:
            job["still"] = "out/stills/{name}.jpg"
        transcodes.append(job)
    grab_jobs = []
    for k, (at, ext) in enumerate(grabs):
        job = {"name": f"g{k + 1}", "type": "grab", "input": src, "at": at, "output": "out/grabs/{name}." + ext}
        if ext == "jpg" and k % 2 == 0:
            job["stillQuality"] = 60
        grab_jobs.append(job)
    record_jobs = []
    for k, (preset, seconds) in enumerate(records):
        job = {"name": f"r{k + 1}", "type": "record", "video": LAVFI_VIDEO,
               "audio": LAVFI_AUDIO if k % 5 != 4 else "none", "preset": preset, "maxDuration": seconds,
               "output": "out/rec/{name}-{index}.mov"}
        if k % 4 == 0:
            job["still"] = "out/stills/{name}.png"
        record_jobs.append(job)
    # Interleave so every shard gets a mix.
    rest = []
    while transcodes or grab_jobs or record_jobs:
        for pool in (transcodes, grab_jobs, record_jobs):
            if pool:
                rest.append(pool.pop(0))
    return rest[:2 * SHARDS] + heavy + rest[2 * SHARDS:]


def expected_outputs(jobs):
    """{job name: {relative path: (kind, seconds)}} with the templates filled in ({date} is not used)."""
    out = {}
    for index, job in enumerate(jobs, 1):
        def fill(template):
            return (template.replace("{name}", job["name"]).replace("{preset}", job.get("preset", "720p"))
                    .replace("{index}", str(index)))
        files = {}
        path = fill(job["output"])
        if job["type"] == "grab":
            files[path] = (path.rsplit(".", 1)[1], None)
        elif job["type"] == "transcode":
            seconds = HEAVY_SECONDS if job["name"].startswith("heavy") else SOURCE_SECONDS
            files[path] = ("movie", seconds)
        else:
            files[path] = ("movie", float(job["maxDuration"]))
        if "still" in job:
            still = fill(job["still"])
            files[still] = (still.rsplit(".", 1)[1], None)
        out[job["name"]] = files
    return out


def shard_of(index):
    return (index - 1) % SHARDS + 1

