#!/usr/bin/env python3
"""Samples every second which processes take the host's CPU: PostgreSQL's, the benchmark JVM's,
the scale-out worker JVMs', the rest, and idle; prints one line per second (percent of all CPUs)."""
import os, sys, time

HZ = os.sysconf('SC_CLK_TCK')
NCPU = os.cpu_count()

def classify(pid):
    try:
        cmd = open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace')
        comm = open(f'/proc/{pid}/comm').read().strip()
    except OSError:
        return None
    if comm == 'postgres' or cmd.startswith('postgres') or '/bin/postgres' in cmd:
        return 'postgres'
    if 'ScaleOutWorker' in cmd:
        return 'worker-jvms'
    if 'docket-bench' in cmd:
        return 'bench-jvm'
    return 'other'

def ticks():
    per = {}
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            f = open(f'/proc/{d}/stat').read()
        except OSError:
            continue
        rest = f[f.rindex(')') + 2:].split()
        t = int(rest[11]) + int(rest[12])
        per[int(d)] = t
    with open('/proc/stat') as s:
        cpu = [int(x) for x in s.readline().split()[1:]]
    return per, cpu

end = time.time() + float(sys.argv[1])
classes = {}
prev, pcpu = ticks()
print('time postgres%% bench-jvm%% worker-jvms%% other%% idle%% iowait%%  (of all %d CPUs)' % NCPU, flush=True)
while time.time() < end:
    time.sleep(1)
    cur, ccpu = ticks()
    total = sum(ccpu) - sum(pcpu)
    acc = {'postgres': 0, 'bench-jvm': 0, 'worker-jvms': 0, 'other': 0}
    for pid, t in cur.items():
        if pid not in classes:
            classes[pid] = classify(pid)
        c = classes[pid]
        if c is None:
            continue
        acc[c] += t - prev.get(pid, 0)
    idle = ccpu[3] - pcpu[3]
    iow = ccpu[4] - pcpu[4]
    pct = lambda v: 100.0 * v / total if total else 0
    print(time.strftime('%H:%M:%S'), ' '.join('%5.1f' % pct(acc[k]) for k in ['postgres', 'bench-jvm', 'worker-jvms', 'other']),
          '%5.1f %5.1f' % (pct(idle), pct(iow)), flush=True)
    prev, pcpu = cur, ccpu
