#!/bin/bash
awk -F, 'NR == FNR { if (FNR > 1) sal[$1] = $2; next }
         FNR == 1 { print "id,name,salary"; next }
         { print $1 "," $2 "," (($1 in sal) ? sal[$1] : "") }' salaries.csv employees.csv > payroll.csv
