package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestServerCannotReadOurProc: a server running as the same user tries
// the /proc/<pid>/environ and fd directory of every mcpconform among its
// ancestors, looking for a secret in mcpconform's own environment (one --inherit-env was not asked
// to pass on) and for mcpconform's descriptors. mcpconform is
// non-dumpable, so neither is readable; the secret reaches no server.
func TestServerCannotReadOurProc(t *testing.T) {
	dir := t.TempDir()
	const secret = "MCPCONFORM_TEST_TOKEN=s3cr3t-" + "value"
	// The script reads what it can, writes its findings, then becomes the
	// reference server, so that the run goes on as usual.
	script := `p=$PPID
while [ "$p" -gt 1 ]; do
  if [ "$(cat /proc/$p/comm)" = mcpconform ]; then
    echo "mcpconform $p"
    tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -q '^MCPCONFORM_TEST_TOKEN=' && echo "environ $p"
    ls /proc/$p/fd >/dev/null 2>&1 && echo "fd $p"
  fi
  p=$(awk '/^PPid:/ { print $2 }' /proc/$p/status)
done > found.txt
exec "$@"`
	args := append([]string{"--quiet", "--", "sh", "-c", script, "sh"}, mockArgs(t)...)
	cmd := exec.Command(cliBinary(t), args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), secret)
	if os.Geteuid() == 0 {
		// Root reads every process's /proc whatever its flags: the attack
		// is a same-user one, so mcpconform and its server run as nobody.
		for _, d := range []string{dir, filepath.Dir(dir), filepath.Dir(cliBinary(t))} {
			if err := os.Chmod(d, 0o777); err != nil {
				t.Fatal(err)
			}
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcpconform: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "found.txt"))
	if err != nil {
		t.Fatal(err)
	}
	found := string(b)
	if !strings.Contains(found, "mcpconform ") {
		t.Fatalf("the server did not find mcpconform among the processes, so nothing was tested:\n%s", found)
	}
	for _, l := range strings.Split(strings.TrimSpace(found), "\n") {
		if strings.HasPrefix(l, "environ ") || strings.HasPrefix(l, "fd ") {
			t.Errorf("the server read %s of mcpconform's /proc", l)
		}
	}
}
