# Associations for priority-check.sh (ASSOC_SETUP of accounting.sh): two
# accounts with unequal shares, three users each, one heavy-share user.
sacctmgr -i add account astro Cluster="$CLUSTER" Description=astro Organization=drsim Fairshare=2 >/dev/null
sacctmgr -i add account bio Cluster="$CLUSTER" Description=bio Organization=drsim Fairshare=1 >/dev/null
for u in p1 p2 p3 p4 p5 p6; do unix_user $u; done
sacctmgr -i add user p1 Account=astro Fairshare=1 >/dev/null
sacctmgr -i add user p2 Account=astro Fairshare=3 >/dev/null
sacctmgr -i add user p3 Account=astro Fairshare=1 >/dev/null
sacctmgr -i add user p4 Account=bio Fairshare=1 >/dev/null
sacctmgr -i add user p5 Account=bio Fairshare=2 >/dev/null
sacctmgr -i add user p6 Account=bio Fairshare=1 >/dev/null
