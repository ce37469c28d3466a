#!/bin/bash
cat > totals.sh <<'SH'
#!/bin/bash
# Adds up the orders in orders.csv. Prints one line per item, "ITEM: QTY", in the order
# the items first appear in the file, then a last line "TOTAL: N" (all items together).
declare -A total
order=()
sum=0
while IFS=, read -r item qty _ || [ -n "$item" ]; do
  if [ -z "${total[$item]+x}" ]; then
    order+=("$item")
    total[$item]=0
  fi
  total[$item]=$((total[$item] + qty))
  sum=$((sum + qty))
done < <(tail -n +2 orders.csv)
for item in "${order[@]}"; do
  echo "$item: ${total[$item]}"
done
echo "TOTAL: $sum"
SH
chmod +x totals.sh
