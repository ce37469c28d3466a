#!/usr/bin/env bash
awk -F, 'NR == FNR { if (FNR > 1) d[$1] = $2; next }
         FNR == 1 { print "name,department"; next }
         { print $2 "," d[$3] }' departments.csv employees.csv > staff.csv
awk -F, 'NR == FNR { if (FNR > 1) d[$1] = $2; next }
         FNR > 1 { t[d[$3]] += $4 }
         END { for (k in t) print t[k], k }' departments.csv employees.csv | sort -rn | head -n 1 |
  awk '{ print "The department with the biggest total payroll is " $2 " (" $1 ")." }'
