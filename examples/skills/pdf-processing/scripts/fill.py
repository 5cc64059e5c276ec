"""Fill a PDF form from a JSON object of field values: fill.py FORM.pdf VALUES.json OUT.pdf"""
import json
import sys


def main() -> None:
    form, values, out = sys.argv[1:4]
    with open(values, encoding="utf-8") as f:
        fields = json.load(f)
    print(f"would fill {len(fields)} field(s) of {form} into {out}")


if __name__ == "__main__":
    main()
